import AppGroupContainer
// AppGroupTesting: being built (see the open issues).
