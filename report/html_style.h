// The stylesheet of report.html, inline in the page (no network).
#pragma once

namespace kaudit::report {

inline constexpr const char* kReportCss = R"css(
:root { --ink:#1f2328; --muted:#59636e; --line:#d8dee4; --bg:#f6f8fa; --card:#fff;
  --clean:#1a7f37; --clean-bg:#dafbe1; --aware:#9a6700; --aware-bg:#fff1c2; --cheat:#cf222e; --cheat-bg:#ffe0e3;
  --notrun:#57606a; --notrun-bg:#eaeef2; --accent:#0969da; }
* { box-sizing:border-box; }
body { margin:0; font:14px/1.5 system-ui,-apple-system,"Segoe UI",Roboto,"Noto Sans","DejaVu Sans",sans-serif;
  color:var(--ink); background:var(--bg); }
a { color:var(--accent); text-decoration:none; } a:hover { text-decoration:underline; }
header.top { background:#24292f; color:#fff; padding:14px 32px; }
header.top h1 { margin:0; font-size:20px; font-weight:600; letter-spacing:.2px; }
header.top .meta { color:#c9d1d9; font-size:13px; margin-top:2px; }
main { max-width:1240px; margin:0 auto; padding:20px 32px 60px; }
/* A link to one page (#board, #<submission> or an anchor inside it) shows that page alone; no fragment shows all. */
main:has(:target) > section.page:not(:target):not(:has(:target)) { display:none; }
section.page { background:var(--card); border:1px solid var(--line); border-radius:10px; padding:20px 24px;
  margin:0 0 28px; scroll-margin-top:12px; }
h2 { font-size:20px; margin:0 0 6px; word-break:break-all; }
h3 { font-size:15px; margin:22px 0 8px; padding-bottom:4px; border-bottom:1px solid var(--line); }
h3.problem { border:none; margin:20px 0 6px; font-size:16px; }
.tiles { display:flex; gap:14px; margin:6px 0 10px; flex-wrap:wrap; }
.tile { flex:1 1 160px; border-radius:10px; padding:12px 16px; border:1px solid var(--line); }
.tile .n { font-size:32px; font-weight:700; line-height:1.1; }
.tile .l { font-size:13px; font-weight:600; text-transform:uppercase; letter-spacing:.5px; }
.tile.clean { background:var(--clean-bg); color:var(--clean); }
.tile.benchmark-aware { background:var(--aware-bg); color:var(--aware); }
.tile.cheat { background:var(--cheat-bg); color:var(--cheat); }
.tile.not-run { background:var(--notrun-bg); color:var(--notrun); }
.sub { color:var(--muted); font-size:13px; }
table { border-collapse:collapse; width:100%; margin:4px 0 6px; }
table.board { table-layout:fixed; }
table.board th:nth-child(1) { width:36px; } table.board th:nth-child(3) { width:92px; }
table.board th:nth-child(4) { width:140px; } table.board th:nth-child(5), table.board th:nth-child(6) { width:108px; }
table.board th:nth-child(7) { width:24%; } table.board th:nth-child(8) { width:68px; }
th, td { text-align:left; padding:6px 10px; border-bottom:1px solid var(--line); vertical-align:top; }
th { font-size:12px; text-transform:uppercase; letter-spacing:.4px; color:var(--muted); background:var(--bg); }
td.num, th.num { text-align:right; font-variant-numeric:tabular-nums; }
td.num { white-space:nowrap; }
td.rank { color:var(--muted); width:32px; }
td.key { font-family:ui-monospace,SFMono-Regular,Menlo,Consolas,"DejaVu Sans Mono",monospace; font-size:13px;
  word-break:break-all; }
tr.row-cheat td.key a { color:var(--cheat); }
.badge { display:inline-block; padding:1px 9px; border-radius:999px; font-size:12px; font-weight:600;
  border:1px solid transparent; white-space:nowrap; }
.badge.clean { background:var(--clean-bg); color:var(--clean); border-color:#aceebb; }
.badge.benchmark-aware { background:var(--aware-bg); color:var(--aware); border-color:#f5d47a; }
.badge.cheat { background:var(--cheat-bg); color:var(--cheat); border-color:#ffb3ba; }
.badge.not-run, .badge.unverified, .badge.unknown { background:var(--notrun-bg); color:var(--notrun); border-color:#d0d7de; }
.badge.suspicious { background:#fbefff; color:#8250df; border-color:#e4c8fb; }
.badge.info { background:#ddf4ff; color:#0969da; border-color:#b6e3ff; }
.res { font-weight:600; } .res.correct { color:var(--clean); } .res.incorrect, .res.error { color:var(--cheat); }
.res.not-run, .res.unknown { color:var(--notrun); }
.ids { font-family:ui-monospace,SFMono-Regular,Menlo,Consolas,"DejaVu Sans Mono",monospace; font-size:12px; color:var(--muted); }
.verdict { display:flex; gap:18px; align-items:center; padding:12px 16px; border-radius:8px; margin:10px 0 4px; }
.verdict.clean { background:var(--clean-bg); } .verdict.benchmark-aware { background:var(--aware-bg); }
.verdict.cheat { background:var(--cheat-bg); } .verdict.not-run, .verdict.unverified, .verdict.unknown { background:var(--notrun-bg); }
.verdict .big { font-size:22px; font-weight:700; text-transform:uppercase; letter-spacing:.6px; min-width:190px; }
.verdict.clean .big { color:var(--clean); } .verdict.benchmark-aware .big { color:var(--aware); }
.verdict.cheat .big { color:var(--cheat); } .verdict.not-run .big, .verdict.unverified .big, .verdict.unknown .big { color:var(--notrun); }
dl.facts { display:grid; grid-template-columns:max-content 1fr; gap:2px 14px; margin:6px 0; font-size:13px; }
dl.facts dt { color:var(--muted); } dl.facts dd { margin:0; word-break:break-all; }
.missing { background:#fff8c5; border:1px solid #eed888; border-radius:8px; padding:8px 14px; margin:10px 0; font-size:13px; }
.missing ul { margin:4px 0 0; padding-left:18px; }
ol.reasons { padding-left:22px; margin:6px 0; } ol.reasons li { margin:4px 0; }
ol.reasons .go { white-space:nowrap; color:var(--muted); font-size:13px; }
.finding { border:1px solid var(--line); border-left:4px solid var(--notrun); border-radius:6px; padding:8px 12px; margin:10px 0; }
.finding.cheat { border-left-color:var(--cheat); } .finding.benchmark-aware { border-left-color:var(--aware); }
.finding.suspicious { border-left-color:#8250df; } .finding.info { border-left-color:var(--accent); }
.finding .head { display:flex; gap:8px; align-items:baseline; flex-wrap:wrap; }
.finding .id { font-family:ui-monospace,SFMono-Regular,Menlo,Consolas,"DejaVu Sans Mono",monospace; font-weight:600; }
.finding .msg { margin:4px 0; }
.finding .where { font-family:ui-monospace,SFMono-Regular,Menlo,Consolas,"DejaVu Sans Mono",monospace; font-size:12px; color:var(--muted); word-break:break-all; }
table.code { font:12.5px/1.45 ui-monospace,SFMono-Regular,Menlo,Consolas,"DejaVu Sans Mono",monospace; background:#f6f8fa;
  border:1px solid var(--line); border-radius:6px; margin-top:6px; table-layout:fixed; }
table.code td { border:none; padding:0 10px; white-space:pre-wrap; word-break:break-all; }
table.code td.ln { width:56px; text-align:right; color:#8c959f; user-select:none; border-right:1px solid var(--line); }
table.code tr.hit td { background:#ffebe9; } table.code tr.hit td.ln { color:var(--cheat); font-weight:700; }
table.code tr.hit td.ln::before { content:"▶ "; }
.ctl { background:#cf222e; color:#fff; border-radius:3px; padding:0 3px; font-size:10px; font-family:ui-monospace,monospace; }
.timing { display:grid; grid-template-columns:minmax(0,760px) minmax(0,1fr); gap:10px 24px; align-items:start; }
@media (max-width:1150px) { .timing { grid-template-columns:1fr; } }
.timing .key { font-size:13px; color:var(--muted); }
.timing .key p { margin:6px 0; }
svg.plot { width:100%; max-width:760px; height:auto; display:block; }
svg.plot .grid { stroke:#d8dee4; stroke-width:1; } svg.plot .grid.minor { stroke-dasharray:3 4; }
svg.plot .axis { stroke:#8c959f; } svg.plot .tick { font-size:12px; fill:#59636e; }
svg.plot .bench { fill:#0969da; } svg.plot .fresh { fill:#e8710a; }
svg.plot .join { stroke:#8c959f; stroke-width:2; } svg.plot .join.bad { stroke:var(--cheat); stroke-width:3; }
svg.plot .ratio { font-size:12px; fill:#59636e; } svg.plot .ratio.bad { fill:var(--cheat); font-weight:700; }
.legend { font-size:12px; color:var(--muted); display:flex; gap:14px; flex-wrap:wrap; margin:4px 0; }
.sw { display:inline-block; width:11px; height:11px; border-radius:2px; vertical-align:-1px; margin-right:5px; }
.sw.dot { border-radius:50%; }
svg.libbar { width:100%; height:30px; display:block; border-radius:5px; }
tr.bad td { color:var(--cheat); font-weight:600; }
.note { font-size:13px; color:var(--muted); }
.perfetto { background:var(--bg); border:1px solid var(--line); border-radius:8px; padding:10px 14px; font-size:13px; }
details > summary { cursor:pointer; color:var(--muted); font-weight:600; margin:14px 0 4px; }
.back { font-size:13px; margin-top:14px; }
.lib { font-weight:600; } .lib.own { color:var(--clean); } .lib.library { color:var(--cheat); } .lib.unknown { color:var(--notrun); }
)css";

}  // namespace kaudit::report
