#!/usr/bin/env python3
"""A self-contained HTML view of a trace in Chrome's Trace Event Format (what a
traced SimulatedDevice writes): one row per thread track, grouped by process,
slices coloured by category, arrows for flow events. Used to take the docs'
screenshot with headless Chromium (Perfetto's UI needs the network):

    .ci/trace-html.py trace.json view.html [--from MS] [--to MS]
    chromium --headless --screenshot=trace.png --window-size=1600,900 view.html
"""
import html
import json
import sys

COLOURS = {
    "lock.wait": "#f4b183", "lock.held": "#c5e0b4", "coordination.read": "#9dc3e6",
    "coordination.write": "#2e75b6", "coordination.presenter": "#b4a7d6",
    "defaults.read": "#ffd966", "defaults.save": "#bf9000", "inbox.enqueue": "#e06666",
    "inbox.delivery": "#6aa84f", "keychain": "#a64d79", "process": "#d9d9d9",
}


def main():
    args = sys.argv[1:]
    if len(args) < 2:
        sys.exit(__doc__)
    source, output = args[0], args[1]
    window_from = float(args[args.index("--from") + 1]) if "--from" in args else None
    window_to = float(args[args.index("--to") + 1]) if "--to" in args else None
    events = json.load(open(source))["traceEvents"]
    processes, threads = {}, {}
    for e in events:
        if e.get("ph") == "M" and e.get("name") == "process_name":
            processes[e["pid"]] = e["args"]["name"]
        if e.get("ph") == "M" and e.get("name") == "thread_name":
            threads[(e["pid"], e["tid"])] = e["args"]["name"]
    slices = [e for e in events if e.get("ph") == "X"]
    if not slices:
        sys.exit("no complete events in " + source)
    t0 = min(e["ts"] for e in slices)
    lo = t0 + (window_from or 0) * 1000
    hi = t0 + window_to * 1000 if window_to else max(e["ts"] + e["dur"] for e in slices)
    slices = [e for e in slices if e["ts"] + e["dur"] >= lo and e["ts"] <= hi]
    tracks = sorted({(e["pid"], e["tid"]) for e in slices},
                    key=lambda k: (processes.get(k[0], ""), k[0], k[1]))
    # Depth of each slice on its track (slices nest), for stacking.
    depth, rows = {}, {}
    for track in tracks:
        stack = []
        mine = sorted((e for e in slices if (e["pid"], e["tid"]) == track), key=lambda e: (e["ts"], -e["dur"]))
        for e in mine:
            while stack and stack[-1] <= e["ts"]:
                stack.pop()
            depth[id(e)] = len(stack)
            stack.append(e["ts"] + e["dur"])
        rows[track] = 1 + max((depth[id(e)] for e in mine), default=0)
    label_width, width, row_height = 260, 1320, 16
    scale = width / max(hi - lo, 1)
    y, top = 30, {}
    parts = []
    last_pid = None
    for track in tracks:
        if track[0] != last_pid:
            y += 8
            parts.append(f'<text x="4" y="{y + 12}" class="process">{html.escape(processes.get(track[0], str(track[0])))} '
                         f'<tspan class="pid">pid {track[0]}</tspan></text>')
            y += 18
            last_pid = track[0]
        top[track] = y
        parts.append(f'<text x="16" y="{y + 12}" class="thread">{html.escape(threads.get(track, str(track[1])))}</text>')
        parts.append(f'<line x1="{label_width}" x2="{label_width + width}" y1="{y - 1}" y2="{y - 1}" class="grid"/>')
        y += rows[track] * row_height + 4
    position = {}
    for e in slices:
        track = (e["pid"], e["tid"])
        x = label_width + max(e["ts"] - lo, 0) * scale
        w = max(min(e["ts"] + e["dur"], hi) - max(e["ts"], lo), 0) * scale
        sy = top[track] + depth[id(e)] * row_height
        position[(track, e["ts"])] = (x, sy)
        colour = COLOURS.get(e.get("cat"), "#cccccc")
        title = html.escape(f'{e.get("cat")}: {e["name"]} ({e["dur"]:.1f} us) {json.dumps(e.get("args", {}))}')
        name = e.get("cat", "") + " " + str(e.get("args", {}).get("item", ""))
        parts.append(f'<g><title>{title}</title><rect x="{x:.2f}" y="{sy}" width="{max(w, 1.5):.2f}" height="{row_height - 2}" fill="{colour}"/>'
                     + (f'<text x="{x + 2:.2f}" y="{sy + 11}" class="slice">{html.escape(name.strip())}</text>' if w > 60 else "") + "</g>")
    starts = {}
    for e in events:
        if e.get("ph") == "s":
            starts[(e.get("cat"), e.get("name"), e.get("id"))] = e
    for e in events:
        if e.get("ph") != "f":
            continue
        s = starts.get((e.get("cat"), e.get("name"), e.get("id")))
        if not s:
            continue
        a = position.get(((s["pid"], s["tid"]), s["ts"]))
        b = position.get(((e["pid"], e["tid"]), e["ts"]))
        if a and b:
            parts.append(f'<path d="M{a[0]:.2f},{a[1] + 7} C{a[0] + 40:.2f},{a[1] + 7} {b[0] - 40:.2f},{b[1] + 7} {b[0]:.2f},{b[1] + 7}" class="flow" marker-end="url(#arrow)"/>')
    axis = []
    span_ms = (hi - lo) / 1000
    step = next(s for s in [0.1, 0.2, 0.5, 1, 2, 5, 10, 20, 50, 100, 200, 500, 1000, 2000, 5000] if span_ms / s <= 12)
    t = 0.0
    while t <= span_ms:
        x = label_width + t * 1000 * scale
        axis.append(f'<line x1="{x:.2f}" x2="{x:.2f}" y1="22" y2="{y}" class="tick"/><text x="{x + 2:.2f}" y="18" class="axis">{t:g} ms</text>')
        t += step
    legend = "".join(f'<span><i style="background:{c}"></i>{k}</span>' for k, c in COLOURS.items())
    page = f"""<!doctype html><html><head><meta charset="utf-8"><title>{html.escape(source)}</title><style>
body {{ font: 12px 'DejaVu Sans', sans-serif; margin: 8px; background: #fff; }}
.process {{ font-weight: bold; font-size: 13px; }} .pid {{ font-weight: normal; fill: #777; }}
.thread {{ fill: #444; }} .slice {{ font-size: 10px; fill: #000; }} .axis {{ fill: #555; font-size: 11px; }}
.tick {{ stroke: #eee; }} .grid {{ stroke: #f3f3f3; }} .flow {{ stroke: #c00000; stroke-width: 1.4; fill: none; }}
.legend span {{ margin-right: 12px; white-space: nowrap; }} .legend i {{ display: inline-block; width: 10px; height: 10px; margin-right: 4px; }}
</style></head><body>
<div class="legend"><b>{html.escape(source.split('/')[-1])}</b> &nbsp; {legend} <span style="color:#c00000">&#8594; causes</span></div>
<svg width="{label_width + width + 10}" height="{y + 10}">
<defs><marker id="arrow" viewBox="0 0 10 10" refX="10" refY="5" markerWidth="7" markerHeight="7" orient="auto"><path d="M0,0 L10,5 L0,10 z" fill="#c00000"/></marker></defs>
{''.join(axis)}{''.join(parts)}</svg></body></html>"""
    open(output, "w").write(page)
    print(f"wrote {output}: {len(tracks)} tracks, {len(slices)} slices, {span_ms:.1f} ms")


main()
