#!/usr/bin/env python3
"""Selects app-extension files from repository snapshots and lists the Apple
symbols each one uses, by regular expressions over the file's text.

    python3 census/extract.py MIRROR_DIR > census/files.tsv

MIRROR_DIR holds one bare snapshot per repository, named `owner+name/repo`
(as the survey's `fetch` tool lays them out). Only the newest commit of each is
read (`git ls-tree` / `git show`), Swift files only. Writes one TSV row per
selected file: repo, path, commit, kind, symbols (space separated, sorted).
No code is written out: only names.

Stdlib only. See census/README.md for what is selected and the limits.
"""
import os
import re
import subprocess
import sys

PER_REPO_CAP = 14  # files kept per repository, so that no repository dominates

# --- which files -----------------------------------------------------------

EXCLUDE = re.compile(
    r'(^|/)(Tests?|UITests|[^/]*Tests|[^/]*Test|Pods|Carthage|vendor|Vendor|ThirdParty|'
    r'third_party|External|\.build|DerivedData|fastlane|Mocks?|Fixtures|Preview Content)(/|$)')

KINDS = [  # (kind, regex over the path's directories), first match wins
    ('notification-service', r'notification.?service|serviceextension|pushextension|notificationextension|nse\b'),
    ('notification-content', r'notification.?content'),
    ('share', r'share'),
    ('widget', r'widget|today|complication|liveactivit'),
    ('keyboard', r'keyboard'),
    ('network', r'tunnel|networkextension|vpnextension|packet|dnsproxy|contentfilter'),
    ('intents', r'intent|siri|shortcut'),
    ('file-provider', r'fileprovider|file.provider'),
    ('autofill', r'autofill|credential.?provider|passwordextension'),
    ('action', r'action.?extension|actionext'),
    ('content-blocker', r'content.?blocker|safari.?extension|webextension'),
]

# A file outside an extension's folder is kept when it touches what apps and
# their extensions share: the container, a suite, an access group, reloads,
# Darwin notifications, the extension context, coordination.
MARKERS = re.compile(
    r'containerURL\(forSecurityApplicationGroupIdentifier|UserDefaults\s*\(\s*suiteName|'
    r'kSecAttrAccessGroup|WidgetCenter|CFNotificationCenterGetDarwinNotifyCenter|'
    r'\bnotify_(post|register)|NSExtensionContext|extensionContext|NSFileCoordinator|'
    r'CFPreferences|UNNotificationServiceExtension')


def kind_of(path, text):
    d = os.path.dirname(path).lower()
    for kind, rx in KINDS:
        if re.search(rx, d):
            return kind
    if 'UNNotificationServiceExtension' in text:
        return 'notification-service'
    if re.search(r':\s*(Intent|AppIntent)?TimelineProvider\b', text):
        return 'widget'
    if re.search(r'extensionContext|NSExtensionContext', text):
        return 'share'
    return None


# --- which symbols ---------------------------------------------------------

def strip_comments(text):
    text = re.sub(r'/\*.*?\*/', ' ', text, flags=re.S)
    return re.sub(r'(?<![:"\\])//[^\n]*', ' ', text)


def labels_at(text, i):
    """Argument labels of the call whose '(' is at text[i]: ['_', 'forKey']."""
    depth, j, start, out = 0, i, i + 1, []
    args = []
    while j < len(text):
        c = text[j]
        if c in '([{':
            depth += 1
        elif c in ')]}':
            depth -= 1
            if depth == 0:
                args.append(text[start:j])
                break
        elif c == ',' and depth == 1:
            args.append(text[start:j])
            start = j + 1
        elif c == '"':  # skip a string literal
            k = j + 1
            while k < len(text) and text[k] != '"' and text[k] != '\n':
                k += 2 if text[k] == '\\' else 1
            j = k
        j += 1
    for a in args:
        m = re.match(r'\s*([A-Za-z_]\w*)\s*:(?!:)', a)
        if a.strip() == '':
            continue
        out.append(m.group(1) if m else '_')
    return out


def decl_labels(text, i):
    """Argument labels of the declaration whose parameter list opens at text[i]:
    `(_ request: T, withContentHandler handler: U)` -> ['_', 'withContentHandler']."""
    depth, j, start, params = 0, i, i + 1, []
    while j < len(text):
        c = text[j]
        if c in '([{<':
            depth += 1
        elif c in ')]}>' and not (c == '>' and text[j - 1] == '-'):
            depth -= 1
            if depth == 0:
                params.append(text[start:j])
                break
        elif c == ',' and depth == 1:
            params.append(text[start:j])
            start = j + 1
        j += 1
    out = []
    for p in params:
        m = re.match(r'\s*(\w+)', p)
        if m:
            out.append(m.group(1))
    return out


def sig(base, labels):
    return base + '(' + ''.join(l + ':' for l in labels) + ')'


def parse_members(spec):
    """'set(_:forKey:) string(forKey:) dictionaryRepresentation() volatileDomainNames'
    -> {'set': [['_','forKey']], ..., 'volatileDomainNames': None}"""
    out = {}
    for item in spec.split():
        if '(' in item:
            base, rest = item.split('(', 1)
            labels = [l for l in rest.rstrip(')').split(':') if l]
            out.setdefault(base, []).append(labels)
        else:
            out[item] = None
    return out


def resolve(owner, base, call_labels, members):
    """Apple's signature for a call, matching the written labels (a trailing
    closure drops the last labels)."""
    sigs = members.get(base)
    if sigs is None:
        return owner + '.' + base
    if call_labels is None:  # referenced, not called: a method reference
        return owner + '.' + sig(base, sigs[0])
    for s in sigs:
        if s == call_labels:
            return owner + '.' + sig(base, s)
    for s in sigs:
        if s[:len(call_labels)] == call_labels:
            return owner + '.' + sig(base, s)
    return None  # labels no Apple signature has: another type's method


# Types whose members are found through the receivers they are bound to.
TRACKED = {
    'UserDefaults': (
        r'UserDefaults\s*\(\s*suiteName:\s*[^)]*\)|UserDefaults\.standard|UserDefaults\s*\(\s*\)',
        'set(_:forKey:) object(forKey:) string(forKey:) bool(forKey:) integer(forKey:) '
        'double(forKey:) float(forKey:) data(forKey:) array(forKey:) dictionary(forKey:) '
        'stringArray(forKey:) url(forKey:) removeObject(forKey:) register(defaults:) '
        'synchronize() dictionaryRepresentation() persistentDomain(forName:) '
        'setPersistentDomain(_:forName:) removePersistentDomain(forName:) addSuite(named:) '
        'removeSuite(named:) volatileDomain(forName:) setVolatileDomain(_:forName:) '
        'removeVolatileDomain(forName:) volatileDomainNames objectIsForced(forKey:) '
        'objectIsForced(forKey:inDomain:) setValue(_:forKey:) value(forKey:) '
        'setValuesForKeys(_:) dictionaryWithValues(forKeys:) setValue(_:forKeyPath:) '
        'value(forKeyPath:) setNilValueForKey(_:) addObserver(_:forKeyPath:options:context:) '
        'removeObserver(_:forKeyPath:) removeObserver(_:forKeyPath:context:) observe(_:options:changeHandler:) '
        'publisher(for:) mutableArrayValue(forKey:)'),
    'UNUserNotificationCenter': (
        r'UNUserNotificationCenter\.current\(\)',
        'add(_:withCompletionHandler:) requestAuthorization(options:completionHandler:) '
        'getNotificationSettings(completionHandler:) notificationSettings() '
        'removeAllDeliveredNotifications() removeAllPendingNotificationRequests() '
        'removeDeliveredNotifications(withIdentifiers:) removePendingNotificationRequests(withIdentifiers:) '
        'getDeliveredNotifications(completionHandler:) deliveredNotifications() '
        'getPendingNotificationRequests(completionHandler:) pendingNotificationRequests() '
        'setNotificationCategories(_:) getNotificationCategories(completionHandler:) '
        'setBadgeCount(_:withCompletionHandler:) delegate supportsContentExtensions'),
    'UNMutableNotificationContent': (
        r'UNMutableNotificationContent\s*\(\s*\)|\(\s*\w+\.content\.mutableCopy\(\)\s+as\?\s+UNMutableNotificationContent\)',
        'title subtitle body badge sound userInfo attachments threadIdentifier categoryIdentifier '
        'targetContentIdentifier interruptionLevel relevanceScore summaryArgument '
        'summaryArgumentCount launchImageName filterCriteria'),
    'LAContext': (
        r'LAContext\s*\(\s*\)',
        'canEvaluatePolicy(_:error:) evaluatePolicy(_:localizedReason:reply:) '
        'evaluatePolicy(_:localizedReason:) invalidate() biometryType localizedReason '
        'localizedFallbackTitle localizedCancelTitle touchIDAuthenticationAllowableReuseDuration '
        'evaluatedPolicyDomainState domainState interactionNotAllowed '
        'evaluateAccessControl(_:operation:localizedReason:reply:) setCredential(_:type:) '
        'isCredentialSet(_:)'),
    'WidgetCenter': (
        r'WidgetCenter\.shared',
        'reloadAllTimelines() reloadTimelines(ofKind:) getCurrentConfigurations(_:) '
        'currentConfigurations() invalidateConfigurationRecommendations() '
        'invalidateRelevance(ofKind:)'),
    'NSFileCoordinator': (
        r'NSFileCoordinator\s*\(\s*(filePresenter:[^)]*)?\)',
        'coordinate(readingItemAt:options:error:byAccessor:) '
        'coordinate(writingItemAt:options:error:byAccessor:) '
        'coordinate(readingItemAt:options:writingItemAt:options:error:byAccessor:) '
        'coordinate(writingItemAt:options:writingItemAt:options:error:byAccessor:) '
        'coordinate(with:queue:byAccessor:) '
        'prepareForReadingItems(at:options:writingItemsAt:options:error:byAccessor:) '
        'item(at:didMoveTo:) item(at:willMoveTo:) cancel() purposeIdentifier'),
}
TRACKED_MEMBERS = {t: parse_members(spec) for t, (_, spec) in TRACKED.items()}


def tracked_symbols(text, found):
    for tname, (ctor, _) in TRACKED.items():
        members = TRACKED_MEMBERS[tname]
        idents = set()
        for m in re.finditer(r'(?:let|var)\s+(\w+)\s*(?::\s*[\w.]+[?!]?\s*)?=\s*(?:' + ctor + r')', text):
            idents.add(m.group(1))
        for m in re.finditer(r'(\w+)\s*:\s*' + tname + r'\b', text):
            idents.add(m.group(1))
        for m in re.finditer(r'(?:if|guard)\s+(?:let|var)\s+(\w+)\s*=\s*(?:' + ctor + r')', text):
            idents.add(m.group(1))
        idents -= {'self', 'super', 'case', 'let', 'var', 'in'}
        recv = '(?:' + ctor + ')'
        if idents:
            recv = '(?:' + ctor + r'|(?<![\w.])(?:self\.|Self\.|\w+\.)?(?:' + '|'.join(map(re.escape, sorted(idents))) + r')\b)'
        for m in re.finditer(recv + r'\s*[?!]?\s*\.\s*(\w+)(\s*\()?', text):
            base = m.group(1)
            if base not in members:
                continue
            labels = labels_at(text, m.end() - 1) if m.group(2) else None
            if members[base] is None:
                found.add(tname + '.' + base)
            else:
                found.add(resolve(tname, base, labels, members))


# Members with distinctive names, called on a value whose type a regex cannot
# see: found by name wherever the owning framework's type appears in the file.
BY_NAME = {
    # owner: (file must mention, member spec)
    'NSItemProvider': (r'NSItemProvider|NSExtensionItem|attachments|extensionContext|itemProvider',
        'hasItemConformingToTypeIdentifier(_:) hasRepresentationConforming(toTypeIdentifier:fileOptions:) '
        'loadItem(forTypeIdentifier:options:completionHandler:) '
        'loadFileRepresentation(forTypeIdentifier:completionHandler:) '
        'loadFileRepresentation(for:openInPlace:completionHandler:) '
        'loadDataRepresentation(forTypeIdentifier:completionHandler:) loadDataRepresentation(for:completionHandler:) '
        'loadInPlaceFileRepresentation(forTypeIdentifier:completionHandler:) '
        'loadObject(ofClass:completionHandler:) canLoadObject(ofClass:) loadTransferable(type:completionHandler:) '
        'registeredTypeIdentifiers registeredContentTypes '
        'registerDataRepresentation(forTypeIdentifier:visibility:loadHandler:) '
        'registerFileRepresentation(forTypeIdentifier:fileOptions:visibility:loadHandler:) '
        'registerObject(_:visibility:) registerItem(forTypeIdentifier:loadHandler:) suggestedName'),
    'NSExtensionContext': (r'extensionContext|NSExtensionContext',
        'inputItems completeRequest(returningItems:completionHandler:) cancelRequest(withError:) '
        'open(_:completionHandler:)'),
    'NSExtensionItem': (r'NSExtensionItem|inputItems',
        'attachments attributedContentText attributedTitle'),
    'UTType': (r'\bUTType\b',
        'conforms(to:) preferredFilenameExtension preferredMIMEType isSubtype(of:) isSupertype(of:)'),
    'NSFilePresenter': (r'NSFilePresenter',
        'presentedItemURL presentedItemOperationQueue presentedItemDidChange() '
        'presentedItemDidMove(to:) accommodatePresentedItemDeletion(completionHandler:) '
        'relinquishPresentedItem(toReader:) relinquishPresentedItem(toWriter:) '
        'savePresentedItemChanges(completionHandler:) presentedSubitemDidChange(at:) '
        'presentedItemDidGain(_:) presentedItemDidLose(_:)'),
    'UNNotificationServiceExtension': (r'UNNotificationServiceExtension',
        'didReceive(_:withContentHandler:) serviceExtensionTimeWillExpire()'),
    'UNUserNotificationCenterDelegate': (r'UNUserNotificationCenterDelegate',
        'userNotificationCenter(_:willPresent:withCompletionHandler:) '
        'userNotificationCenter(_:didReceive:withCompletionHandler:) '
        'userNotificationCenter(_:openSettingsFor:)'),
    'TimelineProvider': (r':\s*TimelineProvider\b|,\s*TimelineProvider\b',
        'placeholder(in:) getSnapshot(in:completion:) getTimeline(in:completion:)'),
    'IntentTimelineProvider': (r'(?<!App)IntentTimelineProvider\b',
        'placeholder(in:) getSnapshot(for:in:completion:) getTimeline(for:in:completion:) recommendations()'),
    'AppIntentTimelineProvider': (r'AppIntentTimelineProvider\b',
        'placeholder(in:) snapshot(for:in:) timeline(for:in:) recommendations()'),
    'TimelineProviderContext': (r'TimelineProvider\b',
        'isPreview family displaySize environmentVariants'),
    'ProcessInfo': (r'ProcessInfo',
        'performExpiringActivity(withReason:using:)'),
}
BY_NAME_MEMBERS = {o: (re.compile(req), parse_members(spec)) for o, (req, spec) in BY_NAME.items()}


def by_name_symbols(text, found):
    for owner, (req, members) in BY_NAME_MEMBERS.items():
        if not req.search(text):
            continue
        is_protocol = owner in ('TimelineProvider', 'IntentTimelineProvider', 'AppIntentTimelineProvider',
                                'UNNotificationServiceExtension', 'UNUserNotificationCenterDelegate',
                                'NSFilePresenter')
        for base, sigs in members.items():
            if is_protocol and sigs is not None:
                # an implementation: `func name(label inner: T, ...)`
                for m in re.finditer(r'\bfunc\s+' + base + r'\s*(<[^>]*>)?\s*(\()', text):
                    labels = decl_labels(text, m.start(2))
                    found.add(resolve(owner, base, labels, members))
                continue
            if sigs is None:
                rx = r'(?:\.|\bvar\s+|\blet\s+)' + base + r'\b' if is_protocol or owner == 'TimelineProviderContext' \
                    else r'\.' + base + r'\b'
                if owner == 'TimelineProviderContext':
                    rx = r'\bcontext\s*\.\s*' + base + r'\b'
                if re.search(rx, text):
                    found.add(owner + '.' + base)
                continue
            for m in re.finditer(r'\.\s*' + base + r'\s*(\()', text):
                found.add(resolve(owner, base, labels_at(text, m.start(1)), members))
    # `func name(...)` params written `label inner: T` give the outer label
    fixed = set()
    for s in found:
        fixed.add(s)
    found.clear()
    found.update(fixed)


TOKEN_RULES = [
    # (framework, regex, template) – template uses \1
    ('Security', r'\b(Sec(?:Item|AccessControl|Key|Trust|Certificate|Identity|Policy|Random|CopyErrorMessageString|Task|Code|Static|Requirement)\w*)\b', r'\1'),
    ('Security', r'\b(kSec\w+)\b', r'\1'),
    ('Security', r'\b(errSec\w+)\b', r'\1'),
    ('Security', r'\bSecAccessControlCreateFlags\.(\w+)', r'SecAccessControlCreateFlags.\1'),
    ('Security', r'\b(OSStatus)\b', r'\1'),
    ('CFPreferences', r'\b(k?CFPreferences\w+)\b', r'\1'),
    ('Darwin notifications', r'\b(CFNotificationCenter\w*|CFNotificationName|CFNotificationCallback|CFNotificationSuspensionBehavior)\b', r'\1'),
    ('Darwin notifications', r'\b(notify_[a-z_]+)\s*\(', r'\1'),
    ('Darwin notifications', r'\b(NOTIFY_[A-Z_]+)\b', r'\1'),
    ('UserNotifications', r'\b(UN[A-Z][A-Za-z]+)\b', r'\1'),
    ('UserNotifications', r'\b(UNAuthorizationOptions|UNNotificationPresentationOptions)\b', r'\1'),
    ('UserNotifications', r'\bUNNotificationSound\.(\w+)', r'UNNotificationSound.\1'),
    ('UserNotifications', r'\bUNMutableNotificationContent\s*\(\s*\)', r'UNMutableNotificationContent.init()'),
    ('UserNotifications', r'\bUNNotificationRequest\s*\(\s*identifier:', r'UNNotificationRequest.init(identifier:content:trigger:)'),
    ('UserNotifications', r'\bUNNotificationAttachment\s*\(\s*identifier:', r'UNNotificationAttachment.init(identifier:url:options:)'),
    ('UserNotifications', r'\.content\.mutableCopy\(\)', r'UNNotificationContent.mutableCopy()'),
    ('UniformTypeIdentifiers', r'\b(kUTType\w+|kUTTag\w+|UTType(?:Copy|Create|Conforms|Equal|IsDeclared|IsDynamic)\w*)\b', r'\1'),
    ('UniformTypeIdentifiers', r'\bUTType\.([a-z]\w*)\b', r'UTType.\1'),
    ('UniformTypeIdentifiers', r'\b(UTType)\b', r'\1'),
    ('UniformTypeIdentifiers', r'\bUTType\.[a-z]\w*(?:\.\w+)?\.identifier\b', r'UTType.identifier'),
    ('UniformTypeIdentifiers', r'\bUTType\.[a-z]\w*\.(localizedDescription|supertypes|tags|isDynamic|isDeclared|isPublic)\b', r'UTType.\1'),
    ('UniformTypeIdentifiers', r'\bUTType\s*\(\s*(filenameExtension|mimeType|tag|exportedAs|importedAs)\s*:', r'UTType.init(\1:)'),
    ('UniformTypeIdentifiers', r'\bUTType\s*\(\s*(?![A-Za-z_]\w*\s*:)[^)\s]', r'UTType.init(_:)'),
    ('LocalAuthentication', r'\b(LAContext|LAPolicy|LAError|LABiometryType|LACredentialType|LAAccessControlOperation)\b', r'\1'),
    ('LocalAuthentication', r'\bLAError\.Code\.(\w+)', r'LAError.Code.\1'),
    ('LocalAuthentication', r'\bLAError\.(?!Code\b)(\w+)', r'LAError.\1'),
    ('LocalAuthentication', r'\bLAPolicy\.(\w+)|[(,]\s*\.(deviceOwnerAuthentication(?:WithBiometrics)?)\b', r'LAPolicy.\1\2'),
    ('LocalAuthentication', r'\bLABiometryType\.(\w+)', r'LABiometryType.\1'),
    ('WidgetKit', r'\b(WidgetCenter|TimelineProvider|IntentTimelineProvider|AppIntentTimelineProvider|TimelineEntry|'
                  r'TimelineReloadPolicy|TimelineProviderContext|WidgetFamily|WidgetInfo|TimelineEntryRelevance|'
                  r'StaticConfiguration|IntentConfiguration|AppIntentConfiguration|WidgetConfiguration|WidgetBundle|'
                  r'ActivityConfiguration|WidgetPreviewContext|WidgetRenderingMode|WidgetAccentable)\b', r'\1'),
    ('WidgetKit', r':\s*(Widget)\s*\{', r'\1'),
    ('WidgetKit', r'\bTimeline\s*\(\s*entries:', r'Timeline.init(entries:policy:)'),
    ('WidgetKit', r'\bTimeline<', r'Timeline'),
    ('WidgetKit', r'\bTimelineReloadPolicy\.(\w+)|\bpolicy:\s*\.(atEnd|never|after)\b', r'TimelineReloadPolicy.\1\2'),
    ('WidgetKit', r'\bWidgetFamily\.(\w+)|\.(system(?:Small|Medium|Large|ExtraLarge)|accessory(?:Circular|Rectangular|Inline|Corner))\b', r'WidgetFamily.\1\2'),
    ('WidgetKit', r'\.(supportedFamilies|configurationDisplayName|contentMarginsDisabled)\s*\(', r'WidgetConfiguration.\1'),
    ('Foundation', r'\bcontainerURL\s*\(\s*forSecurityApplicationGroupIdentifier:', r'FileManager.containerURL(forSecurityApplicationGroupIdentifier:)'),
    ('Foundation', r'\b(NSFileCoordinator|NSFilePresenter|NSFileAccessIntent)\b', r'\1'),
    ('Foundation', r'\bNSFileCoordinator\.(ReadingOptions|WritingOptions|addFilePresenter|removeFilePresenter|filePresenters)\b', r'NSFileCoordinator.\1'),
    ('Foundation', r'\bNSFileCoordinator\s*\(\s*filePresenter:', r'NSFileCoordinator.init(filePresenter:)'),
    ('Foundation', r'\bNSFileAccessIntent\.(readingIntent|writingIntent)\b', r'NSFileAccessIntent.\1'),
    ('Foundation', r'\b(NSUbiquitousKeyValueStore)\b', r'\1'),
    ('NSExtensionContext', r'\b(NSExtension[A-Z]\w*|NSItemProvider(?:Reading|Writing)?)\b', r'\1'),
    ('NSExtensionContext', r'\bNSItemProvider\s*\(\s*item\s*:', r'NSItemProvider.init(item:typeIdentifier:)'),
    ('NSExtensionContext', r'\bNSItemProvider\s*\(\s*(contentsOf|object)\s*:', r'NSItemProvider.init(\1:)'),
    ('UserDefaults', r'\bUserDefaults\s*\(\s*suiteName:', r'UserDefaults.init(suiteName:)'),
    ('UserDefaults', r'\bUserDefaults\.(standard|didChangeNotification|argumentDomain|globalDomain|registrationDomain|resetStandardUserDefaults|sizeLimitExceededNotification)\b', r'UserDefaults.\1'),
    ('UserDefaults', r'\b(UserDefaults)\b', r'\1'),
]
TOKEN_RULES = [(f, re.compile(rx), tpl) for f, rx, tpl in TOKEN_RULES]

# Names the Security/UN/etc. token rules catch that are not Apple's.
NOT_APPLE = re.compile(r'^(kSecItemClass$|kSecMatch$|UN[A-Z]{2,}\w*|SecItemWrapper\w*|Sec(Item|Key)(Class|Query|Accessibility)$)')


def framework_of(sym):
    head = sym.split('.')[0].split('(')[0]
    if head.startswith(('Sec', 'kSec', 'errSec', 'OSStatus')):
        return 'Security'
    if head.startswith(('CFPreferences', 'kCFPreferences')):
        return 'CFPreferences'
    if head.startswith(('CFNotification', 'notify_', 'NOTIFY_')):
        return 'Darwin notifications'
    if head.startswith('UN'):
        return 'UserNotifications'
    if head.startswith(('UTType', 'kUT')):
        return 'UniformTypeIdentifiers'
    if head.startswith('LA'):
        return 'LocalAuthentication'
    if head in ('WidgetCenter', 'TimelineProvider', 'IntentTimelineProvider', 'AppIntentTimelineProvider',
                'TimelineEntry', 'Timeline', 'TimelineReloadPolicy', 'TimelineProviderContext', 'WidgetFamily',
                'WidgetInfo', 'TimelineEntryRelevance', 'StaticConfiguration', 'IntentConfiguration',
                'AppIntentConfiguration', 'WidgetConfiguration', 'WidgetBundle', 'ActivityConfiguration',
                'WidgetPreviewContext', 'WidgetRenderingMode', 'WidgetAccentable', 'Widget'):
        return 'WidgetKit'
    if head.startswith(('NSExtension', 'NSItemProvider')):
        return 'NSExtensionContext'
    if head == 'UserDefaults':
        return 'UserDefaults'
    return 'Foundation'


def symbols(text):
    text = strip_comments(text)
    found = set()
    for _, rx, tpl in TOKEN_RULES:
        for m in rx.finditer(text):
            found.add(m.expand(tpl))
    tracked_symbols(text, found)
    by_name_symbols(text, found)
    if 'TimelineReloadPolicy.after' in found:
        found.discard('TimelineReloadPolicy.after')
        found.add('TimelineReloadPolicy.after(_:)')
    return sorted(s for s in found if s and not NOT_APPLE.match(s) and not s.endswith('.'))


# --- driver ----------------------------------------------------------------

def git(repo_dir, *args):
    return subprocess.run(['git', '-C', repo_dir] + list(args), capture_output=True,
                          check=True).stdout


def survey(mirror):
    rows = []
    for entry in sorted(os.listdir(mirror)):
        repo_dir = os.path.join(mirror, entry, 'repo')
        if '+' not in entry or not os.path.isdir(repo_dir):
            continue
        repo = entry.replace('+', '/', 1)
        commit = git(repo_dir, 'rev-parse', 'HEAD').decode().strip()
        paths = git(repo_dir, 'ls-tree', '-r', '--name-only', 'HEAD').decode().splitlines()
        candidates = []
        for p in paths:
            if not p.endswith('.swift') or EXCLUDE.search(p):
                continue
            try:
                text = git(repo_dir, 'show', 'HEAD:' + p).decode('utf-8', 'replace')
            except subprocess.CalledProcessError:
                continue
            kind = kind_of(p, text)
            marker = MARKERS.search(strip_comments(text))
            if kind is None and not marker:
                continue
            syms = symbols(text)
            if not syms:
                continue
            if kind is None:
                kind = 'keychain-library' if re.search(r'kSecAttrAccessGroup', text) and \
                    not re.search(r'containerURL|suiteName', text) else 'app-shared'
            # extension folders first, then files that talk to them; path order within
            candidates.append((0 if kind not in ('app-shared', 'keychain-library') else 1, p, kind, syms))
        candidates.sort()
        # up to two thirds of the quota from extension folders, the rest from the
        # app's files that talk to them, either side filling what the other leaves
        ext = [c for c in candidates if c[0] == 0]
        app = [c for c in candidates if c[0] == 1]
        n_app = min(len(app), max(PER_REPO_CAP - min(len(ext), PER_REPO_CAP * 2 // 3), 0))
        n_ext = min(len(ext), PER_REPO_CAP - n_app)
        n_app = min(len(app), PER_REPO_CAP - n_ext)
        for _, p, kind, syms in ext[:n_ext] + app[:n_app]:
            rows.append((repo, p, commit, kind, syms))
        print(f'{repo}: {len(candidates)} candidates, kept {min(len(candidates), PER_REPO_CAP)}',
              file=sys.stderr)
    return rows


def main():
    if len(sys.argv) != 2:
        sys.exit(__doc__)
    rows = survey(sys.argv[1])
    out = sys.stdout
    out.write('repo\tpath\tcommit\tkind\tsymbols\n')
    for repo, p, commit, kind, syms in rows:
        out.write(f'{repo}\t{p}\t{commit}\t{kind}\t{" ".join(syms)}\n')


if __name__ == '__main__':
    main()
