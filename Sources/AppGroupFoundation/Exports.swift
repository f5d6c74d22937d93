// On iOS these names come with `import Foundation`; on Linux a file adds
// `import AppGroupFoundation` beside it, or instead of it: this module re-exports
// Foundation, as WidgetKit and Security do here. It re-exports nothing of the
// package's own API (AppGroupContainer stays under its own import), so that a
// module of Apple's names adds Apple's names only.
@_exported import Foundation
