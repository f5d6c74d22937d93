import AppGroupTesting
import Foundation
import ShareInbox

extension InboxLedger {
    /// Drains `app` while `writer` (a live `inbox-enqueue` probe) still holds its log,
    /// kills the writer, drains again, and returns the ledger of the writer's
    /// acknowledgements and both drains, with how many items the first drain got.
    static func drainingAroundDeath(of writer: LaunchedProcess, app: ShareInbox) throws -> (ledger: InboxLedger, whileAlive: Int) {
        var lines = ["drain"]
        let whileAlive = try app.drain { lines.append("got \($0.sequenceNumber) \($0.title ?? "?")") }
        writer.kill()
        let outcome = writer.wait(timeout: 30)
        lines.append("drain")
        try app.drain { lines.append("got \($0.sequenceNumber) \($0.title ?? "?")") }
        var ledger = InboxLedger()
        ledger.acknowledge(outcome.outputLines)
        ledger.deliver(lines, drainer: "app")
        return (ledger, whileAlive)
    }
}
