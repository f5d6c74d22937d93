// The simulated devices, targets and processes live in AppGroupSimulation so that
// executables (ShareFlowDemo) can use them without linking a test framework; a
// test target imports this module and gets them all, with the framework support,
// and (as every product of the package does) AppGroupContainer, AppGroupFoundation
// and Foundation.
@_exported import AppGroupContainer
@_exported import AppGroupFoundation
@_exported import AppGroupSimulation
