//! `warpcert audit --html OUT.html`: one self-contained page (no external resources): the
//! source with each line shaded by its share of the cost and its findings inline; per
//! kernel and metric the bound, relation and certificate verdict; an SVG plot (plotters) of
//! the certified bound against the simulated cost over a parameter; the derivation as a
//! collapsible outline (`<details>`, RaCUDA Figs. 6/7 notation: rule, `{pre}`, `{post}`,
//! side conditions). A small inline script only serves `#expand-all` (opens every outline
//! node by clicking its summary) and records `data-ready`/`data-errors` on `<body>`.

use super::audit::{bsi_text, count_text, AuditRecord};
use crate::audit::{plot::Series, Finding, KernelAudit, Outline};
use std::collections::BTreeMap;
use std::fmt::Write;

/// Outline nodes printed per derivation (the rest is summarized).
pub const MAX_OUTLINE_NODES: usize = 1500;

/// HTML-escapes `s`.
pub fn esc(s: &str) -> String {
    s.replace('&', "&amp;")
        .replace('<', "&lt;")
        .replace('>', "&gt;")
        .replace('"', "&quot;")
}

const STYLE: &str = "body{font-family:sans-serif;margin:1.5em;max-width:75em}\
pre.src{font-family:monospace;font-size:13px;line-height:1.35}\
.ln{display:block;white-space:pre}.no{color:#888;display:inline-block;width:4em}\
.f{display:block;margin:0 0 0 4em;font-size:12px;white-space:normal;border-left:3px solid #c33;padding-left:.5em}\
.f.note{border-color:#999;color:#555}table{border-collapse:collapse}td,th{border:1px solid #ccc;padding:2px 6px;font-size:13px}\
details{margin-left:1.2em;font-family:monospace;font-size:12px}summary{cursor:pointer}.side{color:#246}";

const SCRIPT: &str = "window.onerror=function(){document.body.dataset.errors=(+(document.body.dataset.errors||0)+1)};\
window.addEventListener('load',function(){if(location.hash==='#expand-all'){\
document.querySelectorAll('details').forEach(function(d){if(!d.open){d.querySelector('summary').click();}});}\
document.body.dataset.details=document.querySelectorAll('details[open]').length;\
document.body.dataset.circles=document.querySelectorAll('.plot circle').length;\
document.body.dataset.ready='1';});";

/// The shade of a line: the largest share of its findings (0..1).
fn line_shares(a: &KernelAudit) -> BTreeMap<u32, f64> {
    let mut m = BTreeMap::new();
    for f in &a.findings {
        let e = m.entry(f.line).or_insert(0.0f64);
        *e = e.max(f.share.unwrap_or(0.0));
    }
    m
}

fn finding_html(f: &Finding) -> String {
    format!(
        "<span class=\"f {}\"><b>{}</b> {} <code>{}</code>: {}{}; {}</span>",
        match f.level {
            crate::audit::Level::Warning => "warn",
            crate::audit::Level::Note => "note",
        },
        esc(f.rule),
        esc(&format!("{:?}", f.kind).to_lowercase()),
        esc(if f.expr.is_empty() {
            &f.lowered
        } else {
            &f.expr
        }),
        esc(&count_text(f)),
        f.share
            .map(|s| format!(", {:.1}% of {}", s * 100.0, f.metric))
            .unwrap_or_default(),
        esc(&f.certificate)
    )
}

fn source_html(text: &str, a: &KernelAudit) -> String {
    let shares = line_shares(a);
    let mut by_line: BTreeMap<u32, Vec<&Finding>> = BTreeMap::new();
    for f in &a.findings {
        by_line.entry(f.line).or_default().push(f);
    }
    let mut s = String::from("<pre class=\"src\">");
    for (i, line) in text.lines().enumerate() {
        let n = i as u32 + 1;
        let sh = shares.get(&n).copied().unwrap_or(0.0);
        let _ = write!(
            s,
            "<span class=\"ln\" data-share=\"{sh:.3}\" style=\"background:rgba(220,40,40,{:.3})\"><span class=\"no\">{n}</span>{}</span>",
            (sh * 0.6).min(0.6),
            esc(line)
        );
        for f in by_line.get(&n).into_iter().flatten() {
            s.push_str(&finding_html(f));
        }
    }
    s.push_str("</pre>");
    s
}

/// The SVG plot of a series (plotters' SVG backend): bound and simulated cost, one circle
/// per point. Empty when drawing fails.
pub fn plot_svg(series: &Series) -> String {
    use plotters::prelude::*;
    let mut buf = String::new();
    let ymax = series
        .points
        .iter()
        .flat_map(|p| [p.1, p.2.unwrap_or(0.0)])
        .fold(1.0f64, f64::max)
        * 1.1;
    let xs: Vec<f64> = series.points.iter().map(|p| (p.0 as f64).log2()).collect();
    let (x0, x1) = (
        xs.first().copied().unwrap_or(0.0),
        xs.last().copied().unwrap_or(1.0),
    );
    let draw = |buf: &mut String| -> Result<(), String> {
        let e = |e: &dyn std::fmt::Display| e.to_string();
        let root = SVGBackend::with_string(buf, (520, 300)).into_drawing_area();
        root.fill(&WHITE).map_err(|x| e(&x))?;
        let mut chart = ChartBuilder::on(&root)
            .margin(10)
            .x_label_area_size(30)
            .y_label_area_size(60)
            .build_cartesian_2d(x0 - 0.2..x1 + 0.2, 0.0..ymax)
            .map_err(|x| e(&x))?;
        chart
            .configure_mesh()
            .x_desc(format!("log2 {}", series.param))
            .y_desc(format!("{} per warp", series.metric))
            .draw()
            .map_err(|x| e(&x))?;
        let bound: Vec<(f64, f64)> = series
            .points
            .iter()
            .zip(&xs)
            .map(|(p, x)| (*x, p.1))
            .collect();
        let sim: Vec<(f64, f64)> = series
            .points
            .iter()
            .zip(&xs)
            .filter_map(|(p, x)| p.2.map(|v| (*x, v)))
            .collect();
        chart
            .draw_series(LineSeries::new(bound.clone(), &RED))
            .map_err(|x| e(&x))?
            .label("certified bound")
            .legend(|(x, y)| PathElement::new(vec![(x, y), (x + 15, y)], RED));
        chart
            .draw_series(bound.iter().map(|p| Circle::new(*p, 3, RED.filled())))
            .map_err(|x| e(&x))?;
        chart
            .draw_series(LineSeries::new(sim.clone(), &BLUE))
            .map_err(|x| e(&x))?
            .label("simulated (lock-step semantics)")
            .legend(|(x, y)| PathElement::new(vec![(x, y), (x + 15, y)], BLUE));
        chart
            .draw_series(sim.iter().map(|p| Circle::new(*p, 3, BLUE.filled())))
            .map_err(|x| e(&x))?;
        chart
            .configure_series_labels()
            .background_style(WHITE.mix(0.8))
            .border_style(BLACK)
            .draw()
            .map_err(|x| e(&x))?;
        root.present().map_err(|x| e(&x))?;
        Ok(())
    };
    let ok = draw(&mut buf).is_ok();
    if ok {
        buf
    } else {
        String::new()
    }
}

fn outline_html(o: &Outline, budget: &mut usize, out: &mut String) {
    if *budget == 0 {
        return;
    }
    *budget -= 1;
    let open = "";
    let _ = write!(
        out,
        "<details{open}><summary><b>{}</b> {{{}}} → {{{}}}</summary>",
        esc(&o.rule),
        esc(&o.pre),
        esc(&o.post)
    );
    if !o.side.is_empty() {
        let _ = write!(out, "<div class=\"side\">{}</div>", esc(&o.side.join("; ")));
    }
    for c in &o.children {
        outline_html(c, budget, out);
    }
    if *budget == 0 {
        out.push_str("<div>… (outline truncated)</div>");
    }
    out.push_str("</details>");
}

fn kernel_html(file: &str, text: &str, a: &KernelAudit) -> String {
    let mut s = format!(
        "<h2 id=\"k-{}\">kernel {} <small>({})</small></h2>",
        esc(&a.kernel),
        esc(&a.kernel),
        esc(file)
    );
    s.push_str("<table><tr><th>metric</th><th>bound (per warp)</th><th>relation</th><th>certificate</th></tr>");
    for m in &a.metrics {
        let _ = write!(
            s,
            "<tr><td>{}</td><td><code>{}</code></td><td>{}</td><td>{}</td></tr>",
            m.metric,
            esc(m.bound.as_deref().unwrap_or("(no bound)")),
            esc(m.relation),
            esc(&m.verdict)
        );
    }
    s.push_str("</table>");
    if let Some(b) = &a.bsi {
        let _ = write!(s, "<p>{}</p>", esc(&bsi_text(b)));
    }
    if let Some(r) = &a.reuse {
        let _ = write!(s, "<p>Cache reuse (advice): {}</p>", esc(&r.advice));
    }
    if let Some(se) = &a.series {
        let n = se.points.len() + se.points.iter().filter(|p| p.2.is_some()).count();
        let _ = write!(
            s,
            "<div class=\"plot\" data-points=\"{n}\"><p>{} bound vs simulated cost, every int parameter = {} (x axis)</p>{}</div>",
            se.metric,
            esc(&se.param),
            plot_svg(se)
        );
    }
    s.push_str(&source_html(text, a));
    for m in &a.metrics {
        if let Some(o) = &m.outline {
            let _ = write!(
                s,
                "<h3>derivation ({})</h3><div class=\"outline\">",
                m.metric
            );
            let mut budget = MAX_OUTLINE_NODES;
            outline_html(o, &mut budget, &mut s);
            s.push_str("</div>");
        }
    }
    s
}

/// The page for `records`; `sources` maps each file to its text.
pub fn page(records: &[AuditRecord], sources: &BTreeMap<String, String>, point: &str) -> String {
    let mut s = format!(
        "<!DOCTYPE html><html><head><meta charset=\"utf-8\"><title>warpcert audit</title><style>{STYLE}</style><script>{SCRIPT}</script></head><body><h1>warpcert audit</h1><p>Shares evaluated at {}.</p>",
        esc(point)
    );
    for r in records {
        match &r.audit {
            Some(a) => {
                let text = sources.get(&r.file).map(String::as_str).unwrap_or("");
                s.push_str(&kernel_html(&r.file, text, a));
            }
            None => {
                let _ = write!(
                    s,
                    "<p>{}: {}: error: {}</p>",
                    esc(&r.file),
                    esc(&r.kernel),
                    esc(r.error.as_deref().unwrap_or(""))
                );
            }
        }
    }
    s.push_str("</body></html>\n");
    s
}
