import DeviceTestSupport
import SharedDefaults

/// Opens the group's suite (or `name`) of `sandbox` as its app.
func suite(_ sandbox: Sandbox, _ name: String = Sandbox.group) throws -> SharedDefaults {
    try SharedDefaults(requiringSuiteName: name, resolver: sandbox.resolver())
}
