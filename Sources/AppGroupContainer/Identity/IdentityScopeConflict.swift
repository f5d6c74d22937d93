import Foundation

/// Why code was refused an answer to "who is calling?": answering could have been
/// answering as another scope's target (``AppGroupError/identityScopeConflict(_:)``).
///
/// Every API that asks who is calling refuses with it rather than guess: the
/// throwing ones (``IdentityScope/active``, ``Entitlements/current()``,
/// ``ContainerResolver/current(root:)``) throw it; the ones that cannot throw
/// answer as Apple's do for "no identity" and say why (see the `IdentityScope`
/// discussion).
public struct IdentityScopeConflict: Sendable, Hashable, CustomStringConvertible {
    /// What made the answer unknowable.
    public enum Kind: Sendable, Hashable {
        /// The code runs outside any Swift task (work hopped to a `DispatchQueue`,
        /// an `OperationQueue` or a `Thread`), where no task-local scope reaches,
        /// while different scopes (targets, or devices) are live in the process: which one
        /// started the work cannot be known.
        case ambiguous
        /// The code runs in a task that inherited a scope (a `Task { }` or a task
        /// group's child started inside it) which has ended since.
        case ended
    }

    /// What made the answer unknowable.
    public let kind: Kind
    /// ``Kind/ambiguous``: every scope that could have started the work (two or
    /// more, no two equal); ``Kind/ended``: the scope that ended.
    public let scopes: [IdentityScope]
    /// Where each of ``scopes`` was entered, in the same order ("a task", "thread …").
    package let enteredOn: [String]
    /// Where the refused code ran: its thread, its queue, whether in a task.
    package let location: String

    package init(kind: Kind, scopes: [IdentityScope], enteredOn: [String], location: String) {
        self.kind = kind
        self.scopes = scopes
        self.enteredOn = enteredOn
        self.location = location
    }

    /// What to write instead: capture the scope where the work is started, run the work in it.
    static let remedy = "Carry the scope into the work explicitly: where the work is started, in the scope, capture it "
        + "(`let scope = try IdentityScope.active`) and run the work in it (`IdentityScope.run(scope) { ... }`, or "
        + "`await IdentityScope.run(scope) { ... }` in a task)"

    public var description: String {
        let named = zip(scopes, enteredOn).map { "\(Self.target($0)) (entered on \($1))" }
        switch kind {
        case .ambiguous:
            return "refused to say who is calling: this code runs \(location), outside any Swift task, where no scope's "
                + "task-local binding reaches, and \(scopes.count) different scopes are live in this process: "
                + named.joined(separator: "; ") + ". Which of them started this work cannot be known (tests running "
                + "in parallel each run their own scope), and answering as one would act as another's target. "
                + Self.remedy + ". Or keep such a scope from overlapping other targets' scopes: run its tests with "
                + "`swift test --no-parallel`, or the code in a process of its own (SimulatedDevice.run(built:))."
        case .ended:
            return "refused to say who is calling: this code runs \(location), in a task that inherited the scope of "
                + named.joined(separator: "; ") + ", which has ended: the task (a `Task { }` or a task group's child "
                + "started in the scope) outlived it, and neither that scope nor the process's own identity can "
                + "answer for it now. "
                + "Wait for the task before the scope ends, or " + Self.remedy.prefix(1).lowercased() + Self.remedy.dropFirst() + "."
        }
    }

    /// A scope as its target: application identifier and device root.
    static func target(_ scope: IdentityScope) -> String {
        scope.entitlements.applicationIdentifier + (scope.root.map { " on \($0.path)" } ?? "")
    }
}
