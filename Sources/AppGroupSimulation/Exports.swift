// As every product of the package does, this one re-exports AppGroupContainer and
// AppGroupFoundation (and through them Foundation): a share extension's executable
// that imports this module for `ExtensionMain` has `NSExtensionContext` and
// `NSItemProvider` with it, and a tool driving a device has the containers.
@_exported import AppGroupContainer
@_exported import AppGroupFoundation
