#include "report/html_style.hpp"

namespace linkscope::report {

const std::string& html_style() {
  static const std::string kStyle = R"css(
:root { --text: #1d1d1f; --muted: #5f6368; --line: #dcdfe3; --band: #f6f8fa;
        --err: #b3261e; --err-bg: #fdecea; --warn: #8a5a00; --warn-bg: #fff4d6; --info: #0b57d0; --info-bg: #e8f0fe;
        --ok: #1e7e34; --ok-bg: #e6f4ea; }
* { box-sizing: border-box; }
body { margin: 0; color: var(--text); background: #fff; line-height: 1.45;
       font: 15px/1.45 system-ui, -apple-system, "Segoe UI", Roboto, "DejaVu Sans", Helvetica, Arial, sans-serif; }
header { background: #1f2a37; color: #fff; padding: 18px 28px; }
header h1 { margin: 0 0 4px; font-size: 22px; }
header .facts { margin: 2px 0; color: #d7dde4; overflow-wrap: anywhere; }
header code { color: #fff; background: rgba(255,255,255,0.12); }
nav { position: sticky; top: 0; z-index: 2; background: var(--band); border-bottom: 1px solid var(--line);
      padding: 6px 28px; }
nav ul { list-style: none; margin: 0; padding: 0; display: flex; flex-wrap: wrap; gap: 4px 16px; }
nav a { color: var(--info); text-decoration: none; font-size: 14px; }
main { max-width: 1240px; margin: 0 auto; padding: 8px 28px 40px; }
section { margin-top: 26px; }
h2 { font-size: 19px; border-bottom: 2px solid var(--line); padding-bottom: 4px; }
h3 { font-size: 16px; margin: 18px 0 8px; }
code { font-family: "DejaVu Sans Mono", Menlo, Consolas, monospace; font-size: 13px; background: var(--band);
       padding: 1px 4px; border-radius: 3px; overflow-wrap: anywhere; }
.scroll { overflow-x: auto; max-width: 100%; margin: 8px 0 14px; }
table { border-collapse: collapse; font-size: 13.5px; }
th, td { border: 1px solid var(--line); padding: 5px 8px; vertical-align: top; text-align: left; }
thead th { background: var(--band); white-space: nowrap; }
tbody tr:nth-child(even) td { background: #fbfbfc; }
td.num, th.num { text-align: right; font-variant-numeric: tabular-nums; white-space: nowrap; }
td small, th small { color: var(--muted); font-size: 12px; white-space: normal; }
table.matrix td, table.matrix th { text-align: center; min-width: 64px; }
table.hypotheses td:nth-child(3), table.hypotheses td:nth-child(4), table.hypotheses td:nth-child(5) { min-width: 220px; }
table.four td { min-width: 150px; }
td.bad { color: var(--err); font-weight: 600; }
.cards { display: flex; flex-wrap: wrap; gap: 10px; margin: 10px 0 14px; }
.card { border-radius: 8px; padding: 10px 16px; min-width: 120px; border: 1px solid var(--line); }
.card .big { font-size: 24px; font-weight: 700; margin-right: 4px; }
.sev-error { background: var(--err-bg); } .sev-warning { background: var(--warn-bg); } .sev-info { background: var(--info-bg); }
.verdict-confirmed { background: var(--ok-bg); } .verdict-refuted { background: var(--err-bg); }
.verdict-inconclusive { background: var(--warn-bg); } .verdict-untested { background: var(--band); }
td.verdict-confirmed { color: var(--ok); font-weight: 600; } td.verdict-refuted { color: var(--err); font-weight: 600; }
td.verdict-inconclusive { color: var(--warn); font-weight: 600; } td.verdict-untested { color: var(--muted); }
.finding { border: 1px solid var(--line); border-left: 6px solid var(--info); border-radius: 6px; padding: 4px 16px 8px;
           margin: 12px 0; background: #fff; overflow-wrap: anywhere; }
.finding.sev-error { border-left-color: var(--err); background: #fff; }
.finding.sev-warning { border-left-color: #e0a100; background: #fff; }
.finding.sev-info { background: #fff; }
.finding h3 { margin: 10px 0 6px; }
.badge { display: inline-block; font-size: 12px; font-weight: 700; padding: 2px 8px; border-radius: 10px;
         vertical-align: middle; }
.badge.sev-error { color: #fff; background: var(--err); } .badge.sev-warning { color: #3b2a00; background: #f9c846; }
.badge.sev-info { color: #fff; background: var(--info); }
ul.evidence { margin: 4px 0 8px; padding-left: 20px; font-variant-numeric: tabular-nums; }
code.cmd { display: inline-block; padding: 3px 8px; }
.missing { color: var(--muted); font-style: italic; }
.ok { color: var(--ok); font-weight: 600; }
figure { margin: 10px 0 18px; max-width: 100%; overflow-x: auto; }
figure svg { max-width: 100%; height: auto; display: block; }
figcaption { color: var(--muted); font-size: 13px; margin-top: 4px; }
.grid { display: flex; flex-wrap: wrap; gap: 8px 24px; align-items: flex-start; }
.grid > div { flex: 0 1 auto; max-width: 100%; }
details { margin: 6px 0 12px; }
summary { cursor: pointer; color: var(--info); }
footer { color: var(--muted); font-size: 12px; text-align: center; padding: 16px; border-top: 1px solid var(--line); }
)css";
  return kStyle;
}

}  // namespace linkscope::report
