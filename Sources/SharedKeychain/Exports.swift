// `import SharedKeychain` gives what `import Security` gives on iOS, Foundation's
// types included (Data, NSDictionary, NSNumber behind CFDictionary, CFBoolean...).
@_exported import Foundation
