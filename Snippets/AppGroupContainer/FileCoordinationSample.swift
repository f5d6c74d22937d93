// The samples of the FileCoordination and NSFileCoordinatorOnLinux articles,
// compiled by `swift build`.
import AppGroupFoundation

// snippet.hide
let counterURL = URL(fileURLWithPath: "/tmp/counter")
func modify(_ data: Data) -> Data { data + Data([1]) }
do {
// snippet.show
var error: NSError?
NSFileCoordinator(filePresenter: nil).coordinate(writingItemAt: counterURL, options: .forMerging, error: &error) { url in
    let old = (try? Data(contentsOf: url)) ?? Data()
    try? modify(old).write(to: url, options: .atomic)   // temp + rename: readers never see it torn
}
// snippet.hide
}

let fileURL = URL(fileURLWithPath: "/tmp/file")
let data = Data()
do {
// snippet.show
var error: NSError?
NSFileCoordinator(filePresenter: nil).coordinate(writingItemAt: fileURL, options: .forReplacing, error: &error) { url in
    try? data.write(to: url)
}
// snippet.hide
}
