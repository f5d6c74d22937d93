import Foundation
// appgroup: issue 5 builds the commands here (OldStylePlist and DefaultsValue are ready).
FileHandle.standardError.write(Data("appgroup: being built\n".utf8))
exit(1)
