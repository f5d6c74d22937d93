// Foundation on Linux has neither NSFileCoordinator nor the pointer type its
// `error:` parameters take; both are declared here only where Foundation lacks
// them, so the same source builds against Apple's own on Apple platforms.
#if !canImport(Darwin)
import Foundation
import AppGroupContainer

/// The `error:` parameter of Apple's Objective-C style APIs: pass `&error` for a
/// `var error: NSError?`, or nil to ignore the error.
///
/// Apple's is an `AutoreleasingUnsafeMutablePointer`, which exists only with the
/// Objective-C runtime; an `UnsafeMutablePointer` accepts the same `&error` call.
public typealias NSErrorPointer = UnsafeMutablePointer<NSError?>?
#endif
