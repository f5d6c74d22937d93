// One product import gives the whole App Group vocabulary, as `import Foundation`
// does on iOS: a file that uses this module and also FileManager's containerURL
// or NSFileCoordinator (AppGroupFoundation's) needs no second import line (and,
// under MemberImportVisibility, would otherwise not see those extension members).
@_exported import AppGroupContainer
@_exported import AppGroupFoundation
