/**
 * The HTML report's inline style and script (the page's Content-Security-Policy allows inline ones only). The
 * script filters the findings table (search box, severity, new only) and sorts any table whose header cells are
 * `th.sortable` (a click sorts by that column, again reverses; numbers as numbers, by `data-sort` when a cell has
 * one), counting the rows that match. Of the findings that match, the first {@link PAGE_ROWS} are shown and a button
 * shows more: rows left hidden cost the browser no layout, so a page of 10,000 rows stays responsive.
 */

/** Findings rows shown at first, and added by each "show more". */
export const PAGE_ROWS = 500;

/**
 */

export const STYLE = `
body{font:14px/1.4 system-ui,sans-serif;margin:2rem;color:#1b1f24;background:#fff}
h1{font-size:1.4rem}h2{font-size:1.1rem;margin-top:2rem}h3{font-size:1rem}
.meta{color:#555}
.cards{display:flex;flex-wrap:wrap;gap:.75rem}
.card{border:1px solid #d0d7de;border-radius:6px;padding:.5rem .9rem;min-width:7rem}
.card b{display:block;font-size:1.4rem}
table{border-collapse:collapse;width:100%;margin:.5rem 0}
th,td{border-bottom:1px solid #d0d7de;padding:.25rem .5rem;text-align:left;vertical-align:top}
th{background:#f6f8fa}
th.sortable{cursor:pointer;user-select:none;white-space:nowrap}
th.sortable:hover{text-decoration:underline}
th[aria-sort=ascending]::after{content:" \\2191";color:#1b1f24}
th[aria-sort=descending]::after{content:" \\2193";color:#1b1f24}
td.n{text-align:right}
#findings{table-layout:fixed;min-width:60rem}#findings td{overflow-wrap:anywhere}
.sev-violation,.sev-template-annotation-failure,.sev-input-error,.sev-policy-failure{color:#b42318;font-weight:600}
.sev-warning{color:#9a6700}.sev-audit{color:#0969da}.sev-shadow{color:#57606a}
.new{display:inline-block;margin-left:.3rem;padding:0 .3rem;border-radius:3px;background:#ddf4ff;color:#0550ae;font-size:.8em;font-weight:600}
.breakdowns{display:grid;grid-template-columns:repeat(auto-fit,minmax(36rem,1fr));gap:1rem 2rem}
.breakdown td:first-child{min-width:10rem}.breakdown th,.breakdown td{padding:.25rem .4rem}.breakdown code{word-break:normal;overflow-wrap:anywhere}
.scroll{overflow-x:auto}
.legend{margin-right:.8rem;white-space:nowrap}.legend i{display:inline-block;width:.8rem;height:.8rem;margin-right:.3rem;vertical-align:middle}
#trend-chart{max-width:720px;display:block}
.pass{white-space:nowrap}.pass svg{vertical-align:middle}
.notes{color:#57606a}.notes li{margin:.15rem 0}
input[type=search]{width:100%;max-width:40rem;padding:.4rem;font:inherit}
code{font-size:.9em;word-break:break-all}
@media (max-width:700px){body{margin:.6rem}#trend-chart{min-width:540px}.breakdowns{grid-template-columns:minmax(0,1fr)}.breakdown td:first-child{min-width:8rem}.card{min-width:5.5rem;padding:.4rem .6rem}}
`;

export const SCRIPT = `
(function(){
  var q=document.getElementById("q"),s=document.getElementById("sev"),nw=document.getElementById("only-new"),
    body=document.querySelector("#findings tbody"),n=document.getElementById("shown"),more=document.getElementById("more"),
    page=${PAGE_ROWS},limit=page;
  function apply(){
    var t=q.value.toLowerCase(),v=s.value,onlyNew=nw!==null&&nw.checked,c=0,rows=body.rows;
    for(var i=0;i<rows.length;i++){
      var r=rows[i],ok=(v===""||r.getAttribute("data-severity")===v)&&(!onlyNew||r.hasAttribute("data-new"))&&
        (t===""||r.textContent.toLowerCase().indexOf(t)>=0);
      if(ok)c++;
      var hide=!ok||c>limit;if(r.hidden!==hide)r.hidden=hide;
    }
    n.textContent=String(c);
    more.hidden=c<=limit;
    more.textContent="Show "+Math.min(page,c-limit)+" more of the "+(c-limit)+" not shown";
  }
  function reset(){limit=page;apply();}
  q.addEventListener("input",reset);s.addEventListener("change",reset);if(nw!==null)nw.addEventListener("change",reset);
  more.addEventListener("click",function(){limit+=page;apply();});
  function key(cell){
    var k=cell===undefined?"":(cell.getAttribute("data-sort")||cell.textContent.trim());
    var x=Number(k);return k!==""&&!isNaN(x)?{n:x,s:k}:{n:null,s:k.toLowerCase()};
  }
  function sortBy(th){
    var table=th.closest("table"),tb=table.tBodies[0],col=th.cellIndex;
    var dir=th.getAttribute("aria-sort")==="ascending"?"descending":"ascending",sign=dir==="ascending"?1:-1;
    var ths=table.tHead.rows[0].cells;for(var i=0;i<ths.length;i++)ths[i].removeAttribute("aria-sort");
    th.setAttribute("aria-sort",dir);
    var rows=Array.prototype.slice.call(tb.rows),keyed=rows.map(function(r,i){return{r:r,k:key(r.cells[col]),i:i};});
    keyed.sort(function(a,b){
      var x=a.k,y=b.k,d;
      if(x.n!==null&&y.n!==null)d=x.n-y.n;else if(x.n!==null)d=-1;else if(y.n!==null)d=1;else d=x.s<y.s?-1:x.s>y.s?1:0;
      return d!==0?d*sign:a.i-b.i;
    });
    var f=document.createDocumentFragment();for(var j=0;j<keyed.length;j++)f.appendChild(keyed[j].r);tb.appendChild(f);
    if(tb===body)apply();
  }
  var heads=document.querySelectorAll("th.sortable");
  for(var i=0;i<heads.length;i++){
    heads[i].tabIndex=0;
    heads[i].addEventListener("click",function(e){sortBy(e.currentTarget);});
    heads[i].addEventListener("keydown",function(e){if(e.key==="Enter"||e.key===" "){e.preventDefault();sortBy(e.currentTarget);}});
  }
  apply();
})();
`;
