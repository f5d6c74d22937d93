/// A value that is not a property-list type, for the refusals of the stores' writers.
package struct NotAPlist: Sendable {
    package var x = 1
    package init() {}
}
