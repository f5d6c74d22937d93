// On iOS, `import Foundation` gives NSFileCoordinator, URL and OperationQueue at
// once. Re-exporting Foundation lets `import AppGroupContainer` alone stand in
// for it, so a file that swaps one import line for the other still compiles.
@_exported import Foundation
