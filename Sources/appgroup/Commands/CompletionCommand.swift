/// `appgroup completion bash|zsh`: a shell completion script on standard output.
enum CompletionCommand {
    static let help = """
        usage: appgroup completion bash|zsh

        Prints a completion script for the shell. Load it for the session with
          source <(appgroup completion bash)        (bash)
          source <(appgroup completion zsh)         (zsh)
        or save it where the shell loads completions from.
        """

    /// Commands and the subcommands and options each takes, for the scripts.
    static let commands = ["path", "list", "create", "erase", "defaults", "pending", "keychain", "device", "plist", "trace", "completion", "help"]
    static let defaultsCommands = ["read", "read-type", "write", "delete", "rename", "find", "export", "import"]
    static let keychainCommands = ["list", "delete", "reset"]
    static let deviceCommands = ["lock", "unlock", "reboot", "status", "biometry"]
    static let options = ["--root", "--suite", "--bundle", "--json", "--device", "--group", "--class", "--service",
                          "--account", "--accessibility", "--synchronizable", "--lint", "--convert", "--output", "--help", "--version"]

    static func run(_ argv: [String]) throws {
        let arguments = try Arguments(argv, options: [], flags: [])
        if arguments.wantsHelp { return Output.line(help) }
        try arguments.expectPositionals(1...1, "bash or zsh")
        switch arguments.positionals[0] {
        case "bash": Output.line(bash)
        case "zsh": Output.line(zsh)
        default: throw CLIError.usage("unknown shell \(Arguments.quote(arguments.positionals[0])): use bash or zsh")
        }
    }

    static var bash: String {
        """
        # bash completion for appgroup (appgroup completion bash)
        _appgroup() {
            local cur prev words cword
            cur="${COMP_WORDS[COMP_CWORD]}"
            prev="${COMP_WORDS[COMP_CWORD-1]}"
            case "$prev" in
                --root|--output) COMPREPLY=($(compgen -f -- "$cur")); return 0 ;;
                --convert) COMPREPLY=($(compgen -W "xml1 binary1 json" -- "$cur")); return 0 ;;
            esac
            if [ "$COMP_CWORD" -eq 1 ]; then
                COMPREPLY=($(compgen -W "\(commands.joined(separator: " ")) --help --version" -- "$cur"))
                return 0
            fi
            case "${COMP_WORDS[1]}" in
                defaults) [ "$COMP_CWORD" -eq 2 ] && { COMPREPLY=($(compgen -W "\(defaultsCommands.joined(separator: " "))" -- "$cur")); return 0; } ;;
                keychain) [ "$COMP_CWORD" -eq 2 ] && { COMPREPLY=($(compgen -W "\(keychainCommands.joined(separator: " "))" -- "$cur")); return 0; } ;;
                device)
                    [ "$COMP_CWORD" -eq 2 ] && { COMPREPLY=($(compgen -W "\(deviceCommands.joined(separator: " "))" -- "$cur")); return 0; }
                    if [ "${COMP_WORDS[2]}" = biometry ] && [[ "$cur" != -* ]]; then
                        case "$prev" in
                            biometry) COMPREPLY=($(compgen -W "\(BiometryCommand.commands.joined(separator: " "))" -- "$cur")); return 0 ;;
                            type) [ "$COMP_CWORD" -eq 4 ] && { COMPREPLY=($(compgen -W "\(BiometryCommand.kindWords.joined(separator: " "))" -- "$cur")); return 0; } ;;
                        esac
                        [ "${COMP_WORDS[3]}" = next ] && { COMPREPLY=($(compgen -W "\(BiometryCommand.outcomeWords.joined(separator: " "))" -- "$cur")); return 0; }
                    fi ;;
                completion) COMPREPLY=($(compgen -W "bash zsh" -- "$cur")); return 0 ;;
                plist|trace) [[ "$cur" != -* ]] && { COMPREPLY=($(compgen -f -- "$cur")); return 0; } ;;
            esac
            if [[ "$cur" == -* ]]; then
                COMPREPLY=($(compgen -W "\(options.joined(separator: " "))" -- "$cur"))
            fi
            return 0
        }
        complete -F _appgroup appgroup
        """
    }

    static var zsh: String {
        """
        #compdef appgroup
        # zsh completion for appgroup (appgroup completion zsh)
        _appgroup() {
            local -a commands subcommands
            commands=(\(commands.joined(separator: " ")))
            if (( CURRENT == 2 )); then
                compadd -- $commands --help --version
                return
            fi
            case "${words[CURRENT-1]}" in
                --root|--output) _files; return ;;
                --convert) compadd -- xml1 binary1 json; return ;;
            esac
            case "${words[2]}" in
                defaults) subcommands=(\(defaultsCommands.joined(separator: " "))) ;;
                keychain) subcommands=(\(keychainCommands.joined(separator: " "))) ;;
                device)
                    subcommands=(\(deviceCommands.joined(separator: " ")))
                    if [[ "${words[3]}" == biometry && "${words[CURRENT]}" != -* ]]; then
                        (( CURRENT == 4 )) && { compadd -- \(BiometryCommand.commands.joined(separator: " ")); return; }
                        (( CURRENT == 5 )) && [[ "${words[4]}" == type ]] && { compadd -- \(BiometryCommand.kindWords.joined(separator: " ")); return; }
                        [[ "${words[4]}" == next ]] && { compadd -- \(BiometryCommand.outcomeWords.joined(separator: " ")); return; }
                    fi ;;
                completion) subcommands=(bash zsh) ;;
                plist|trace) [[ "${words[CURRENT]}" != -* ]] && { _files; return; } ;;
            esac
            if (( CURRENT == 3 )) && (( ${#subcommands} )); then
                compadd -- $subcommands
                return
            fi
            if [[ "${words[CURRENT]}" == -* ]]; then
                compadd -- \(options.joined(separator: " "))
            fi
        }
        if [[ "$funcstack[1]" == "_appgroup" ]]; then
            _appgroup "$@"
        else
            compdef _appgroup appgroup
        fi
        """
    }
}
