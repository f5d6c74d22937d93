/// The tool's overview, printed by `appgroup --help`.
enum Help {
    static let commandList = "path, list, create, erase, defaults, pending, keychain, device, plist, trace or completion"
    static let defaultsList = "read, read-type, write, delete, rename, find, export or import"

    /// `a, b or c`, for messages listing the words a place accepts.
    static func list(_ words: [String]) -> String {
        words.count < 2 ? words.joined() : words.dropLast().joined(separator: ", ") + " or " + (words.last ?? "")
    }

    static let overview = """
        usage: appgroup <command> [options]
               appgroup --version

        The simulated device's control panel: looks into, prepares, snapshots and resets
        the emulated App Group containers, app containers and keychain, as `defaults`,
        `plutil` and `xcrun simctl` do on a Mac.

        Containers:
          path [--root DIR] GROUP | --bundle BUNDLE    a container's directory
          list [--root DIR] [--json]                   the groups present: suites, pending items, bytes used
          create [--root DIR] GROUP | --bundle BUNDLE  make a container on purpose (for fixtures)
          erase [--root DIR]                           erase the whole simulated device
          pending [--root DIR] GROUP [--json]          the items waiting in the share inbox, not consumed
        Defaults (GROUP, or --bundle BUNDLE for an app's private suites; --suite NAME):
          defaults read GROUP [KEY] [--json]           a suite, or one key, like `defaults read`
          defaults read-type GROUP KEY                 "Type is string"...
          defaults write GROUP KEY [-type] VALUE...    set a key, typed like `defaults write`
          defaults delete GROUP [KEY]                  remove a key, or every key of the suite
          defaults rename GROUP OLD_KEY NEW_KEY        rename a key
          defaults find WORD                           search every suite's keys and string values
          defaults export GROUP FILE|-                 the suite as a binary property list
          defaults import GROUP FILE|-                 replace the suite with an XML or binary property list
        Keychain and device state (--device NAME):
          keychain list [--group G] [--json]           the items, never a secret
          keychain delete FILTER...                    remove matching items
          keychain reset                               remove every item
          device lock|unlock|reboot|status             the state data protection follows
          device biometry [status [--json]]            the biometric sensor: enrolment, lockout, prompts shown
          device biometry type|enroll|unenroll|re-enroll|next OUTCOME...|reset
                                                       script it: Face ID or Touch ID, a new face, match, cancel...
        Files and shell:
          plist FILE [--lint | --convert FORMAT]       any property-list file, like `plutil`
          trace FILE|DIR... [--output OUT]             summarise or merge a device's timeline trace
          completion bash|zsh                          a shell completion script
        `appgroup COMMAND --help` describes each.

        Identity: appgroup is an inspector, like the simulator tools. It acts as an
        identity entitled to the group it names (and to that group only), or as the app
        --bundle names, whatever identity the environment describes. Its reads and
        writes still go through SharedDefaults, the file coordinator, the share inbox
        and the keychain's locks, as an app's do: a running app or extension sees a
        write at once, a concurrent writer is never clobbered, and nothing pending is
        consumed. Only `create` makes a container.

        The container root: --root DIR, else APP_GROUP_CONTAINERS_ROOT, else
        $XDG_DATA_HOME/AppGroupContainers, else ~/.local/share/AppGroupContainers;
        on macOS ~/Library/Application Support/AppGroupContainers, the emulator's own
        folder (never the system's group containers unless --root names them).
        A suite defaults to the group's own (the one SharedDefaults(suiteName: GROUP) opens).

        Exit status: 0 on success; 1 when something is missing or fails (an unknown group,
        a suite or key that does not exist, a corrupt suite file); 64 for bad arguments;
        65 for a value that does not parse as its type. The reason is one line on
        standard error.
        """

    static let defaults = """
        usage: appgroup defaults read      [--root DIR] GROUP [--suite NAME] [KEY] [--json]
               appgroup defaults read-type [--root DIR] GROUP [--suite NAME] KEY
               appgroup defaults write     [--root DIR] GROUP [--suite NAME] KEY [-type] VALUE...
               appgroup defaults delete    [--root DIR] GROUP [--suite NAME] [KEY]
               appgroup defaults rename    [--root DIR] GROUP [--suite NAME] OLD_KEY NEW_KEY
               appgroup defaults find      [--root DIR] WORD
               appgroup defaults export    [--root DIR] GROUP [--suite NAME] FILE|-
               appgroup defaults import    [--root DIR] GROUP [--suite NAME] FILE|-
        In place of GROUP, --bundle BUNDLE names an app's private suites.

        Reads and edits the defaults suites of an App Group through SharedDefaults, as
        `defaults` does on a Mac; appgroup acts as an identity entitled to GROUP.
        `appgroup defaults read --help` (and each other command) describes each.
        """
}
