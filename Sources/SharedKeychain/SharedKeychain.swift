import AppGroupContainer
// SharedKeychain: being built (see the open issues).
