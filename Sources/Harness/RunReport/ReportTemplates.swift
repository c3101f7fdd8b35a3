import Mustache

/// The pages' Mustache templates (HTML, inline SVG, CSS and the one small script for zoom, pan
/// and "show on the timeline"). Kept in Swift strings, not resource files: the harness binary
/// carries them, and a report renders wherever it runs. Nothing here loads from the network.
enum ReportTemplates {
    static func render(_ template: String, _ context: [String: Any]) -> String {
        do { return try MustacheTemplate(string: template).render(context) } catch {
            // The templates are constants of this file; RunReportPageTests renders each one.
            preconditionFailure("report template does not parse: \(error)")
        }
    }

    static let style = """
        body{font:14px/1.4 system-ui,-apple-system,"Segoe UI",sans-serif;margin:0;color:#212121;background:#fafafa}
        header{padding:14px 20px;background:#263238;color:#eceff1}
        header h1{font-size:19px;margin:0 0 4px}
        header .meta{font-size:13px;color:#b0bec5}
        .verdict{display:inline-block;padding:2px 10px;border-radius:4px;font-weight:700;margin-right:8px}
        .verdict.pass{background:#2e7d32;color:#fff}.verdict.fail{background:#c62828;color:#fff}.verdict.undecided{background:#f9a825;color:#212121}
        section{padding:10px 20px}
        h2{font-size:16px;margin:14px 0 6px}
        pre,code{font:12px/1.35 ui-monospace,"DejaVu Sans Mono",monospace}
        pre.cmd{background:#eceff1;padding:8px;border-radius:4px;white-space:pre-wrap}
        .toolbar button{margin-right:6px}
        #timeline-wrap{overflow-x:auto;border:1px solid #cfd8dc;background:#fff}
        svg text{font:11px system-ui,sans-serif;fill:#37474f}
        .lane-label{font-weight:600;font-size:12px}
        .lane-note{fill:#78909c;font-size:10px}
        .span-alive{fill:#c8e6c9}.span-seen{fill:#eceff1}.span-stopped{fill:#ffb74d}.span-suspended{fill:#90a4ae}
        .m{cursor:pointer}.m.cited{stroke:#b71c1c;stroke-width:1.5}
        .m.focus{stroke:#000;stroke-width:2.5}
        .bin{opacity:.55}
        .violation-marker line{stroke:#c62828;stroke-width:2;stroke-dasharray:4 3}
        .violation-marker text{fill:#c62828;font-weight:700;font-size:12px}
        .violation-marker.focus line{stroke-width:4}
        .violation{border-left:4px solid #c62828;background:#fff;padding:8px 12px;margin:8px 0}
        .violation.focus{background:#ffebee}
        .violation pre{background:#fafafa;border:1px solid #eee;padding:6px;overflow-x:auto;margin:4px 0}
        .cited-line{color:#b71c1c}
        .m.proven{stroke:#4a148c;stroke-width:2.5}
        .proven-causes{border-left:4px solid #4a148c;padding:2px 8px;margin:6px 0}.proven-line{color:#4a148c;font-family:monospace}
        table{border-collapse:collapse}td,th{padding:3px 10px;border-bottom:1px solid #e0e0e0;text-align:left}
        .ok{color:#2e7d32}.bad{color:#c62828;font-weight:700}
        .legend span{display:inline-block;margin:2px 12px 2px 0;font-size:12px}
        .legend i{display:inline-block;width:10px;height:10px;margin-right:4px;vertical-align:middle}
        .hist{display:inline-block;margin:0 18px 14px 0;vertical-align:top;background:#fff;border:1px solid #e0e0e0;padding:6px}
        .hist h3{font-size:13px;margin:0}.hist .what{font-size:12px;color:#607d8b;max-width:460px}
        .hist rect{fill:#5c6bc0}.hist line.mark{stroke:#c62828;stroke-dasharray:3 2}.hist text.mark{fill:#c62828}
        .note{color:#607d8b;font-size:12px}
        #runs td{white-space:nowrap}#runs td.violated{white-space:normal}
        """

    /// Zoom (wheel, buttons), pan (drag) and "show on the timeline": every element of the timeline
    /// carries its device time (`data-t`, or `data-t1`/`data-t2` for bands, seconds from the run's
    /// first line), and the script places them again for the visible window.
    static let script = """
        (function () {
          "use strict";
          var svg = document.getElementById("timeline");
          if (!svg) return;
          var L = +svg.getAttribute("data-left"), W = +svg.getAttribute("data-width"), SPAN = +svg.getAttribute("data-span");
          var clip = document.getElementById("plot-rect");
          // The plot takes the window's width (the SVG is laid out for a wide one).
          function fit() {
            var w = svg.parentNode.clientWidth;
            if (w > L + 200) { W = w - L - 12; svg.setAttribute("width", w - 2); clip.setAttribute("width", W); }
          }
          fit();
          var H = +svg.getAttribute("height"), AXIS = +svg.getAttribute("data-axis");
          var v0 = 0, v1 = SPAN, draws = 0;
          var points = svg.querySelectorAll("[data-t]"), bands = svg.querySelectorAll("[data-t1]");
          var NS = "http://www.w3.org/2000/svg";
          function X(t) { return L + (t - v0) / (v1 - v0) * W; }
          function pad(n) { return (n < 10 ? "0" : "") + n; }
          function offset(s) {
            var d = Math.floor(s / 86400), h = Math.floor(s % 86400 / 3600), m = Math.floor(s % 3600 / 60), sec = s % 60;
            var secText = (v1 - v0) < 60 ? (sec < 10 ? "0" : "") + sec.toFixed(3) : pad(Math.floor(sec));
            return "+" + (d > 0 ? d + "d" : "") + pad(h) + ":" + pad(m) + ":" + secText;
          }
          var STEPS = [0.001, 0.01, 0.1, 1, 2, 5, 10, 15, 30, 60, 120, 300, 600, 900, 1800, 3600, 7200, 10800, 21600, 43200, 86400, 172800, 604800];
          function axis() {
            var g = document.getElementById("axis");
            while (g.firstChild) g.removeChild(g.firstChild);
            var step = STEPS[STEPS.length - 1];
            for (var i = 0; i < STEPS.length; i++) { if ((v1 - v0) / STEPS[i] <= 10) { step = STEPS[i]; break; } }
            for (var t = Math.ceil(v0 / step) * step; t <= v1; t += step) {
              var x = X(t), l = document.createElementNS(NS, "line");
              l.setAttribute("x1", x); l.setAttribute("x2", x); l.setAttribute("y1", AXIS - 6); l.setAttribute("y2", H);
              l.setAttribute("stroke", "#e0e0e0");
              g.appendChild(l);
              var tx = document.createElementNS(NS, "text");
              tx.setAttribute("x", x + 2); tx.setAttribute("y", AXIS - 9); tx.textContent = offset(t);
              g.appendChild(tx);
            }
          }
          function draw() {
            var i, e, x;
            for (i = 0; i < points.length; i++) {
              e = points[i]; x = X(+e.getAttribute("data-t"));
              e.setAttribute("visibility", x < L - 4 || x > L + W + 4 ? "hidden" : "visible");
              if (e.tagName === "g") e.setAttribute("transform", "translate(" + x + ",0)");
              else e.setAttribute("x", x - 1.5);
            }
            for (i = 0; i < bands.length; i++) {
              e = bands[i];
              var a = Math.max(X(+e.getAttribute("data-t1")), L - 2), b = Math.min(X(+e.getAttribute("data-t2")), L + W + 2);
              e.setAttribute("visibility", b < a ? "hidden" : "visible");
              e.setAttribute("x", a); e.setAttribute("width", Math.max(1, b - a));
            }
            axis();
            document.getElementById("window").textContent = offset(v0) + " – " + offset(v1);
            svg.setAttribute("data-drawn", String(++draws));
          }
          function zoom(factor, at) {
            var len = Math.min(SPAN, Math.max(0.01, (v1 - v0) * factor));
            var c = at === undefined ? (v0 + v1) / 2 : at;
            var f = (c - v0) / (v1 - v0);
            v0 = c - f * len; v1 = v0 + len;
            if (v0 < 0) { v1 -= v0; v0 = 0; }
            if (v1 > SPAN) { v0 -= v1 - SPAN; v1 = SPAN; if (v0 < 0) v0 = 0; }
            draw();
          }
          function tAt(ev) {
            var r = svg.getBoundingClientRect();
            return v0 + (ev.clientX - r.left - L) / W * (v1 - v0);
          }
          svg.addEventListener("wheel", function (ev) { ev.preventDefault(); zoom(ev.deltaY < 0 ? 0.8 : 1.25, tAt(ev)); }, { passive: false });
          var drag = null;
          svg.addEventListener("mousedown", function (ev) { drag = { x: ev.clientX, v0: v0, v1: v1 }; });
          window.addEventListener("mouseup", function () { drag = null; });
          window.addEventListener("mousemove", function (ev) {
            if (!drag) return;
            var dt = (ev.clientX - drag.x) / W * (drag.v1 - drag.v0);
            var len = drag.v1 - drag.v0;
            v0 = Math.min(Math.max(0, drag.v0 - dt), SPAN - len); v1 = v0 + len;
            draw();
          });
          window.addEventListener("resize", function () { fit(); draw(); });
          document.getElementById("zoom-in").addEventListener("click", function () { zoom(0.5); });
          document.getElementById("zoom-out").addEventListener("click", function () { zoom(2); });
          document.getElementById("zoom-reset").addEventListener("click", function () { v0 = 0; v1 = SPAN; draw(); });
          var links = document.querySelectorAll("[data-show-violation]");
          for (var i = 0; i < links.length; i++) {
            links[i].addEventListener("click", function (ev) {
              ev.preventDefault();
              var n = this.getAttribute("data-show-violation");
              var old = document.querySelectorAll(".focus");
              for (var j = 0; j < old.length; j++) old[j].classList.remove("focus");
              var cited = svg.querySelectorAll(".v" + n);
              for (j = 0; j < cited.length; j++) cited[j].classList.add("focus");
              document.getElementById("violation-" + n).classList.add("focus");
              var text = document.getElementById("violation-text-" + n);
              text.classList.add("focus");
              text.open = true;
              var a = +this.getAttribute("data-t1"), b = +this.getAttribute("data-t2");
              var margin = Math.max((b - a) * 0.15, 60);
              v0 = Math.max(0, a - margin); v1 = Math.min(SPAN, b + margin);
              draw();
              document.getElementById("timeline-section").scrollIntoView();
            });
          }
          var jumps = document.querySelectorAll("a[href^='#violation-text-']");
          for (i = 0; i < jumps.length; i++) {
            jumps[i].addEventListener("click", function () { document.getElementById(this.getAttribute("href").slice(1)).open = true; });
          }
          draw();
          // A link to report.html#show-violation-N opens the page at that violation.
          var m = /^#show-violation-(\\d+)$/.exec(location.hash);
          var wanted = m && document.querySelector("[data-show-violation='" + m[1] + "']");
          if (wanted) wanted.click();
        })();
        """

    static let page = """
        <!DOCTYPE html>
        <html lang="en"><head><meta charset="utf-8">
        <meta http-equiv="Content-Security-Policy" content="default-src 'none'; style-src 'unsafe-inline'; script-src 'unsafe-inline'; img-src data:">
        <title>{{title}}</title>
        <style>{{{style}}}</style></head>
        <body>
        <header>
        <h1><span class="verdict {{verdictClass}}" id="verdict">{{verdict}}</span>{{scenario}} · {{variant}} · seed {{seed}}</h1>
        <div class="meta">system {{system}} · checker {{checker}} · {{deviceSpan}} of device time from {{startText}} · {{lineCount}} history lines · run directory {{name}}</div>
        </header>
        {{#hasRerun}}<section><h2>Rerun</h2><pre class="cmd" id="rerun">{{rerun}}</pre>
        <div class="note">Same scenario, variant, seed and build give the same history (docs/REPRODUCE.md in the harness's repository). The history: <a href="history.jsonl">history.jsonl</a>{{#judged}} · the verdict: <a href="report.json">report.json</a>{{/judged}}</div></section>{{/hasRerun}}
        {{^judged}}<section><p class="bad">No report.json in this run directory: verdicts unknown (<code>harness check {{name}}</code> judges the history).</p></section>{{/judged}}
        {{#hasUndecidedReason}}<section><p class="bad">Undecided: {{undecidedReason}}</p></section>{{/hasUndecidedReason}}
        {{#hasBadLines}}<section><p class="bad">Lines of history.jsonl that do not parse (left out): {{badLines}}</p></section>{{/hasBadLines}}
        <section id="timeline-section"><h2>Timeline ({{laneCount}} processes)</h2>
        <div class="toolbar"><button id="zoom-in">zoom in</button><button id="zoom-out">zoom out</button><button id="zoom-reset">whole run</button>
        <span class="note">wheel: zoom at the pointer · drag: pan · hover a marker for its history line · window <span id="window"></span></span></div>
        <div class="legend">{{#legend}}<span><i style="background:{{colour}}"></i>{{label}}</span>{{/legend}}
        <span><i class="span-alive" style="background:#c8e6c9"></i>alive (spawn–exit)</span><span><i style="background:#ffb74d"></i>stopped (SIGSTOP)</span>
        <span><i style="background:#90a4ae"></i>suspended by iOS</span><span><i style="background:#fff;border:2px solid #c62828"></i>cited by a violation</span><span><i style="background:#fff;border:2px solid #4a148c"></i>proven cause (a rerun without it holds)</span></div>
        <div id="timeline-wrap">
        <svg id="timeline" xmlns="http://www.w3.org/2000/svg" width="{{svgWidth}}" height="{{svgHeight}}" data-left="{{plotLeft}}" data-width="{{plotWidth}}" data-span="{{span}}" data-axis="{{axisHeight}}">
        <defs><clipPath id="plot"><rect id="plot-rect" x="{{plotLeft}}" y="0" width="{{plotWidth}}" height="{{svgHeight}}"/></clipPath></defs>
        <g id="axis"></g>
        {{#lanes}}<g class="lane" data-process="{{name}}">
        {{#stripe}}<rect x="0" y="{{y}}" width="100%" height="{{height}}" fill="#f5f7f8"/>{{/stripe}}
        <text class="lane-label" x="6" y="{{labelY}}">{{name}}</text><text class="lane-note" x="6" y="{{noteY}}">{{note}}</text>
        <g clip-path="url(#plot)">
        {{#spans}}<rect class="span-{{kind}}" x="{{x}}" y="{{y}}" width="{{w}}" height="{{h}}" data-t1="{{t1}}" data-t2="{{t2}}"><title>{{title}}</title></rect>
        {{/spans}}{{#bins}}<rect class="bin" x="{{x}}" y="{{y}}" width="{{w}}" height="10" fill="{{colour}}" data-t1="{{t1}}" data-t2="{{t2}}"><title>{{title}}</title></rect>
        {{/bins}}{{{markersHTML}}}</g></g>
        {{/lanes}}
        {{#violations}}<g class="violation-marker" id="violation-{{index}}" data-t="{{t}}" transform="translate({{x}},0)"><line x1="0" x2="0" y1="{{top}}" y2="{{bottom}}"/><text x="3" y="{{top}}">{{label}}</text><title>V{{index}} {{invariant}}: {{explanation}}</title></g>
        {{/violations}}
        </svg></div>
        <div class="note">Drawn: {{drawing}}.</div></section>
        {{#hasViolations}}<section id="violations"><h2>{{violationCount}} violation(s)</h2>
        <p class="by-invariant">{{#violatedInvariants}}<span class="inv"><b>{{name}}</b> × {{count}}</span> {{/violatedInvariants}}</p>
        <table><tr><th></th><th>invariant</th><th>about</th><th>proved at</th><th></th></tr>
        {{#violations}}<tr><td><b>V{{index}}</b></td><td>{{invariant}}</td><td>{{subject}}</td><td>{{when}}</td><td><a href="#timeline-section" data-show-violation="{{index}}" data-t1="{{t1}}" data-t2="{{t2}}">show on the timeline</a> · <a href="#violation-text-{{index}}">lines</a></td></tr>
        {{/violations}}</table>
        {{#violations}}<details class="violation" id="violation-text-{{index}}"{{#first}} open{{/first}}><summary><b>V{{index}} {{invariant}}</b> — {{subject}}, at {{when}}: {{explanation}}</summary>
        {{#hasProven}}<div class="proven-causes"><b>Proven causes</b> (a rerun without it holds, every other step kept):<ul>{{#proven}}<li>{{#found}}<span class="proven-line">history.jsonl:{{line}}</span> {{/found}}{{text}}</li>{{/proven}}</ul>{{#provenNote}}<div class="note">{{provenNote}}</div>{{/provenNote}}</div>
        <div class="evidence-title">Evidence (the lines the checker cites, and the disturbances before them — not proven causes):</div>{{/hasProven}}
        <pre>{{#cited}}<span class="{{#found}}cited-line{{/found}}">history.jsonl:{{line}}</span>  {{text}}
        {{/cited}}</pre></details>
        {{/violations}}</section>{{/hasViolations}}
        {{#hasHistograms}}<section id="latencies"><h2>Latencies</h2>
        {{#histograms}}<div class="hist" data-series="{{name}}"><h3>{{name}}</h3><div class="what">{{what}} — {{summary}}</div>
        {{^empty}}<svg xmlns="http://www.w3.org/2000/svg" width="{{width}}" height="{{height}}">
        {{#bars}}<rect x="{{x}}" y="{{y}}" width="{{w}}" height="{{h}}"><title>{{title}}</title></rect>{{/bars}}
        <line x1="40" x2="{{width}}" y1="{{axisY}}" y2="{{axisY}}" stroke="#90a4ae"/>
        {{#ticks}}<text x="{{x}}" y="{{labelY}}" text-anchor="middle">{{label}}</text>{{/ticks}}
        {{#marks}}<line class="mark" x1="{{x}}" x2="{{x}}" y1="{{markTop}}" y2="{{axisY}}"/><text class="mark" x="{{x}}" y="{{markLabelY}}">{{label}}</text>{{/marks}}
        <text x="4" y="20">{{maxCount}}</text><text x="4" y="{{axisY}}">0</text>
        </svg>{{/empty}}</div>
        {{/histograms}}<div class="note">Bars: samples per power-of-two bin of microseconds (CLOCK_MONOTONIC); p50 and p99 as report.json gives them.</div></section>{{/hasHistograms}}
        {{#hasHeartbeats}}<section id="heartbeats"><h2>Heartbeats</h2>
        <table><tr><th>monitor</th><th>rule</th><th>decisions</th><th>true alarms</th><th>false alarms (writer was)</th><th>deaths</th><th>detected</th><th>missed</th><th>latency p50 / p99 s</th></tr>
        {{#heartbeats}}<tr class="heartbeat" data-monitor="{{monitor}}"><td>{{monitor}} ({{writer}})</td><td>{{rule}}</td><td>{{decisions}}</td><td>{{trueAlarms}}</td><td>{{falseAlarms}}{{states}}</td><td>{{deaths}}</td><td>{{detected}}</td><td>{{missed}}</td><td>{{p50}} / {{p99}}</td></tr>
        {{/heartbeats}}</table>
        {{#heartbeats}}{{#findings}}<div class="note">{{#bad}}<span class="bad">{{kind}}</span>{{/bad}}{{^bad}}<span class="ok">{{kind}}</span>{{/bad}} {{monitor}} at {{when}} {{subject}}: the writer was {{state}} — {{detail}}{{latency}}</div>
        {{/findings}}{{#hasMore}}<div class="note">… {{more}} more in report.json</div>{{/hasMore}}{{/heartbeats}}
        <div class="note">Each decision "dead" judged against the writer's real state in the history; <code>harness heartbeats RUN_DIR</code> replays the beats through other detectors.</div></section>{{/hasHeartbeats}}
        <section id="invariants"><h2>Invariants</h2>
        {{#judged}}<table><tr><th>invariant</th><th>verdict</th><th>checked</th></tr>
        {{#results}}<tr><td>{{name}}</td><td>{{#passed}}<span class="ok">held</span>{{/passed}}{{^passed}}<span class="bad">violated</span>{{/passed}}</td><td>{{checked}}</td></tr>
        {{/results}}</table>{{/judged}}
        {{#lost}}<p class="note">Lost by iOS (not blamed on the system): {{invariant}} — {{explanation}}</p>{{/lost}}
        </section>
        <script>{{{script}}}</script>
        </body></html>
        """
}
