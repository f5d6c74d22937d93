import AppGroupContainer
// ShareFlowDemo: issue 4 builds the share-flow scenario here.
print("ShareFlowDemo: not built yet")
