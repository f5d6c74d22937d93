// The simulated devices, targets and processes live in AppGroupSimulation so that
// executables (ShareFlowDemo) can use them without linking a test framework; a
// test target imports this module and gets them all, with the framework support.
@_exported import AppGroupSimulation
