import AppGroupContainer
// SharedDefaults: issue 3 builds the suite store here.
