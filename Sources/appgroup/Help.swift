/// The tool's overview, printed by `appgroup --help`.
enum Help {
    static let overview = """
        usage: appgroup <command> [options]

        Looks into and edits the emulated App Group containers, as `defaults`,
        `plutil -p` and `xcrun simctl get_app_container ... groups` do on a Mac.

        Commands:
          path [--root DIR] GROUP                      the group's container directory
          list [--root DIR] [--json]                   the groups present: suites, pending items, bytes used
          defaults read [--root DIR] GROUP [--suite NAME] [KEY] [--json]
                                                       a suite, or one key, like `defaults read`
          defaults write [--root DIR] GROUP [--suite NAME] KEY [-type] VALUE...
                                                       set a key, typed like `defaults write`
          defaults delete [--root DIR] GROUP [--suite NAME] [KEY]
                                                       remove a key, or every key of the suite
          pending [--root DIR] GROUP [--json]          the items waiting in the share inbox, not consumed
        `appgroup COMMAND --help` describes each.

        Identity: appgroup is an inspector, like the simulator tools. It acts as an
        identity entitled to the group it names (and to that group only), whatever
        identity the environment describes. Its reads and writes still go through
        SharedDefaults, the file coordinator and the share inbox, as an app's do: a
        running app or extension sees a write at once, a concurrent writer is never
        clobbered, and nothing pending is consumed. It never creates a group.

        The container root: --root DIR, else APP_GROUP_CONTAINERS_ROOT, else
        $XDG_DATA_HOME/AppGroupContainers, else ~/.local/share/AppGroupContainers
        (~/Library/Group Containers on macOS).
        A suite defaults to the group's own (the one SharedDefaults(suiteName: GROUP) opens).

        Exit status: 0 on success; 1 when something is missing or fails (an unknown group,
        a suite or key that does not exist, a corrupt suite file); 64 for bad arguments;
        65 for a value that does not parse as its type. The reason is one line on
        standard error.
        """

    static let defaults = """
        usage: appgroup defaults read   [--root DIR] GROUP [--suite NAME] [KEY] [--json]
               appgroup defaults write  [--root DIR] GROUP [--suite NAME] KEY [-type] VALUE...
               appgroup defaults delete [--root DIR] GROUP [--suite NAME] [KEY]

        Reads and edits the defaults suites of an App Group through SharedDefaults, as
        `defaults` does on a Mac; appgroup acts as an identity entitled to GROUP.
        `appgroup defaults read --help` (write, delete) describes each.
        """
}
