//! What a report produces: markdown tables (also written as CSV), charts (SVG), the raw data
//! (JSON), and one markdown page linking them.

use std::fmt::Write as _;
use std::fs;
use std::io;
use std::path::{Path, PathBuf};

use plotters::prelude::*;
use serde::Serialize;

/// A table: a header row and rows of cells.
#[derive(Debug, Clone, Default, Serialize)]
pub struct Table {
    /// File stem of the CSV (`<report>-<stem>.csv`).
    pub stem: String,
    /// A caption above the table.
    pub caption: String,
    /// Column names.
    pub header: Vec<String>,
    /// Rows.
    pub rows: Vec<Vec<String>>,
}

impl Table {
    /// An empty table.
    pub fn new(stem: &str, caption: &str, header: &[&str]) -> Table {
        Table {
            stem: stem.into(),
            caption: caption.into(),
            header: header.iter().map(|s| s.to_string()).collect(),
            rows: Vec::new(),
        }
    }

    /// Appends a row.
    pub fn row(&mut self, cells: Vec<String>) {
        self.rows.push(cells);
    }

    /// GitHub-flavoured markdown.
    pub fn markdown(&self) -> String {
        let mut s = String::new();
        let _ = writeln!(s, "| {} |", self.header.join(" | "));
        let _ = writeln!(
            s,
            "|{}",
            self.header.iter().map(|_| "---|").collect::<String>()
        );
        for r in &self.rows {
            let _ = writeln!(s, "| {} |", r.join(" | "));
        }
        s
    }

    /// CSV (cells quoted when needed).
    pub fn csv(&self) -> String {
        let q = |c: &str| {
            if c.contains([',', '"', '\n']) {
                format!("\"{}\"", c.replace('"', "\"\""))
            } else {
                c.to_string()
            }
        };
        let mut s = String::new();
        for r in std::iter::once(&self.header).chain(&self.rows) {
            let _ = writeln!(
                s,
                "{}",
                r.iter().map(|c| q(c)).collect::<Vec<_>>().join(",")
            );
        }
        s
    }
}

/// A line of a chart.
#[derive(Debug, Clone, Serialize)]
pub struct Series {
    /// Legend label.
    pub label: String,
    /// (x, y) points.
    pub points: Vec<(f64, f64)>,
}

/// A line chart.
#[derive(Debug, Clone, Serialize)]
pub struct Chart {
    /// File stem (`<report>-<stem>.svg`).
    pub stem: String,
    /// Title.
    pub title: String,
    /// X axis label, with unit.
    pub x_label: String,
    /// Y axis label, with unit.
    pub y_label: String,
    /// Logarithmic x axis.
    pub log_x: bool,
    /// Logarithmic y axis.
    pub log_y: bool,
    /// The y axis starts at 0 (linear axes only).
    pub y_from_zero: bool,
    /// Legend in the upper left corner instead of the default (lower right on linear y axes
    /// from 0, where the lines rarely go; upper right otherwise).
    pub legend_upper_left: bool,
    /// Lines.
    pub series: Vec<Series>,
}

/// How a chart's axis is scaled.
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
pub enum Scale {
    /// Linear.
    Linear,
    /// Logarithmic.
    Log,
}

impl Chart {
    /// A linear chart with the y axis from 0.
    pub fn new(stem: &str, title: &str, x_label: &str, y_label: &str) -> Chart {
        Chart::titled(stem, title)
            .x(x_label, Scale::Linear)
            .y(y_label, Scale::Linear)
    }

    /// A chart with the y axis from 0 and its axes not yet named: name them, and pick their
    /// scales, with [`Chart::x`] and [`Chart::y`].
    pub fn titled(stem: &str, title: &str) -> Chart {
        Chart {
            stem: stem.into(),
            title: title.into(),
            x_label: String::new(),
            y_label: String::new(),
            log_x: false,
            log_y: false,
            y_from_zero: true,
            legend_upper_left: false,
            series: Vec::new(),
        }
    }

    /// The x axis: its label (with unit) and scale.
    pub fn x(mut self, label: &str, scale: Scale) -> Chart {
        (self.x_label, self.log_x) = (label.into(), scale == Scale::Log);
        self
    }

    /// The y axis: its label (with unit) and scale.
    pub fn y(mut self, label: &str, scale: Scale) -> Chart {
        (self.y_label, self.log_y) = (label.into(), scale == Scale::Log);
        self
    }

    /// The legend in the upper left corner.
    pub fn legend_upper_left(mut self) -> Chart {
        self.legend_upper_left = true;
        self
    }

    /// Adds a line.
    pub fn line(&mut self, label: impl Into<String>, points: Vec<(f64, f64)>) {
        self.series.push(Series {
            label: label.into(),
            points,
        });
    }

    /// Adds a line through `(xs[i], y(i))` for every index `i` of `xs` where `y` has a value.
    pub fn line_over(
        &mut self,
        label: impl Into<String>,
        xs: &[usize],
        mut y: impl FnMut(usize) -> Option<f64>,
    ) {
        let points = xs
            .iter()
            .enumerate()
            .filter_map(|(i, &x)| Some((x as f64, y(i)?)))
            .collect();
        self.line(label, points);
    }

    /// Renders the chart as SVG into `path`.
    ///
    /// # Errors
    /// Drawing or file errors, as text.
    pub fn render(&self, path: &Path) -> Result<(), String> {
        let pts = self.series.iter().flat_map(|s| s.points.iter());
        let (mut x0, mut x1, mut y0, mut y1) = (f64::MAX, f64::MIN, f64::MAX, f64::MIN);
        for &(x, y) in pts {
            if !(x.is_finite() && y.is_finite()) {
                continue;
            }
            x0 = x0.min(x);
            x1 = x1.max(x);
            y0 = y0.min(y);
            y1 = y1.max(y);
        }
        if x0 > x1 {
            (x0, x1, y0, y1) = (1.0, 2.0, 1.0, 2.0);
        }
        if x0 == x1 {
            x1 = x0 + 1.0;
        }
        // A log axis spanning less than a decade and a half would show one label or none.
        let log_y = self.log_y && y0 > 0.0 && y1 / y0 >= 30.0;
        if self.y_from_zero && !log_y {
            y0 = y0.min(0.0);
        }
        if y0 == y1 {
            y1 = y0 + 1.0;
        }
        let pad = (y1 - y0) * 0.08;
        // A few distinct x values (thread counts): one label each, no fractional ticks.
        let mut xs: Vec<f64> = self
            .series
            .iter()
            .flat_map(|s| s.points.iter().map(|p| p.0))
            .collect();
        xs.sort_by(f64::total_cmp);
        xs.dedup();
        let x_labels = if !self.log_x && xs.len() <= 10 && (x1 - x0) <= 20.0 {
            (x1 - x0) as usize + 1
        } else {
            10
        };
        let legend_pos = if self.legend_upper_left {
            SeriesLabelPosition::UpperLeft
        } else if self.y_from_zero && !log_y {
            SeriesLabelPosition::LowerRight
        } else {
            SeriesLabelPosition::UpperRight
        };
        let root = SVGBackend::new(path, (760, 440)).into_drawing_area();
        root.fill(&WHITE).map_err(|e| e.to_string())?;
        let mut b = ChartBuilder::on(&root);
        b.caption(&self.title, ("sans-serif", 20))
            .margin(12)
            .x_label_area_size(44)
            .y_label_area_size(78);
        macro_rules! draw {
            ($chart:expr) => {{
                let mut chart = $chart;
                chart
                    .configure_mesh()
                    .x_labels(x_labels)
                    .x_desc(self.x_label.as_str())
                    .y_desc(self.y_label.as_str())
                    .x_label_formatter(&|v| fmt_num(*v))
                    .y_label_formatter(&|v| fmt_num(*v))
                    .label_style(("sans-serif", 13))
                    .axis_desc_style(("sans-serif", 15))
                    .light_line_style(RGBColor(235, 235, 235))
                    .draw()
                    .map_err(|e| e.to_string())?;
                for (i, s) in self.series.iter().enumerate() {
                    let color = COLORS[i % COLORS.len()].to_rgba();
                    let style = ShapeStyle::from(color).stroke_width(2);
                    let pts: Vec<(f64, f64)> = s
                        .points
                        .iter()
                        .copied()
                        .filter(|p| p.0.is_finite() && p.1.is_finite())
                        .collect();
                    chart
                        .draw_series(LineSeries::new(pts.clone(), style))
                        .map_err(|e| e.to_string())?
                        .label(s.label.as_str())
                        .legend(move |(x, y)| {
                            PathElement::new(vec![(x, y), (x + 20, y)], color.stroke_width(2))
                        });
                    chart
                        .draw_series(pts.iter().map(|&p| Circle::new(p, 3, color.filled())))
                        .map_err(|e| e.to_string())?;
                }
                chart
                    .configure_series_labels()
                    .background_style(WHITE.mix(0.85))
                    .border_style(BLACK.mix(0.4))
                    .label_font(("sans-serif", 13))
                    .position(legend_pos)
                    .draw()
                    .map_err(|e| e.to_string())?;
            }};
        }
        let yr = if log_y {
            // Headroom above the lines for the legend (upper corner).
            let top = y1 * (1.25f64).max((y1 / y0.max(1e-9)).powf(0.6));
            (y0 * 0.8).max(1e-9)..top
        } else {
            y0..y1 + pad
        };
        match (self.log_x, log_y) {
            (false, false) => draw!(b
                .build_cartesian_2d(x0..x1, yr)
                .map_err(|e| e.to_string())?),
            (true, false) => draw!(b
                .build_cartesian_2d((x0..x1).log_scale(), yr)
                .map_err(|e| e.to_string())?),
            (false, true) => draw!(b
                .build_cartesian_2d(x0..x1, yr.log_scale())
                .map_err(|e| e.to_string())?),
            (true, true) => draw!(b
                .build_cartesian_2d((x0..x1).log_scale(), yr.log_scale())
                .map_err(|e| e.to_string())?),
        }
        root.present().map_err(|e| e.to_string())?;
        Ok(())
    }
}

/// Matplotlib's "tab10" palette: distinguishable, and none too light on white.
const COLORS: [RGBColor; 10] = [
    RGBColor(31, 119, 180),
    RGBColor(214, 39, 40),
    RGBColor(44, 160, 44),
    RGBColor(255, 127, 14),
    RGBColor(148, 103, 189),
    RGBColor(140, 86, 75),
    RGBColor(227, 119, 194),
    RGBColor(127, 127, 127),
    RGBColor(23, 190, 207),
    RGBColor(188, 189, 34),
];

/// Compact number for axis labels: 1.5K, 2M, 0.25.
pub fn fmt_num(v: f64) -> String {
    let a = v.abs();
    let (x, suffix) = if a >= 1e9 {
        (v / 1e9, "G")
    } else if a >= 1e6 {
        (v / 1e6, "M")
    } else if a >= 1e3 {
        (v / 1e3, "K")
    } else {
        (v, "")
    };
    let s = if x.abs() >= 100.0 || x.fract().abs() < 1e-9 {
        format!("{x:.0}")
    } else if x.abs() >= 10.0 {
        format!("{x:.1}")
    } else {
        format!("{x:.2}")
    };
    let s = if s.contains('.') {
        s.trim_end_matches('0').trim_end_matches('.').to_string()
    } else {
        s
    };
    format!("{s}{suffix}")
}

/// A report's headline: what it measured, next to the published figure it reproduces.
#[derive(Debug, Clone, Default, Serialize, serde::Deserialize, PartialEq)]
pub struct Headline {
    /// What the figure is.
    pub what: String,
    /// The figure measured here.
    pub measured: String,
    /// The published figure (and its letter, A-F, as `BENCHMARKS.md` names the published runs).
    pub published: String,
}

/// A report's output.
#[derive(Debug, Clone, Default, Serialize)]
pub struct Report {
    /// The report's name (`hash-instances`).
    pub name: String,
    /// A title.
    pub title: String,
    /// What it measures and which published figure it reproduces (markdown).
    pub about: String,
    /// The command that produced it.
    pub command: String,
    /// Findings or caveats (markdown bullets).
    pub notes: Vec<String>,
    /// The one figure `index.md` lists for this report, next to the published one.
    pub headline: Option<Headline>,
    /// Tables.
    pub tables: Vec<Table>,
    /// Charts.
    pub charts: Vec<Chart>,
    /// Raw data (anything serialisable), written to the JSON file.
    pub data: serde_json::Value,
}

impl Report {
    /// A report named `name`.
    pub fn new(name: &str, title: &str, about: &str) -> Report {
        Report {
            name: name.into(),
            title: title.into(),
            about: about.into(),
            ..Report::default()
        }
    }

    /// Writes `<dir>/<name>.md`, `.json`, one CSV per table and one SVG per chart. Returns the
    /// markdown file's path.
    ///
    /// # Errors
    /// File-system errors.
    pub fn write(&self, dir: &Path) -> io::Result<PathBuf> {
        fs::create_dir_all(dir)?;
        let mut md = String::new();
        let _ = writeln!(md, "# {}\n\n{}\n", self.title, self.about);
        if !self.command.is_empty() {
            let _ = writeln!(md, "Produced by:\n\n```sh\n{}\n```\n", self.command);
        }
        if let Some(h) = &self.headline {
            let _ = writeln!(
                md,
                "**Headline:** {}: {} (published: {})\n",
                h.what, h.measured, h.published
            );
        }
        for t in &self.tables {
            let csv = format!("{}-{}.csv", self.name, t.stem);
            fs::write(dir.join(&csv), t.csv())?;
            let _ = writeln!(
                md,
                "### {}\n\n{}\n([CSV]({csv}))\n",
                t.caption,
                t.markdown()
            );
        }
        for c in &self.charts {
            let svg = format!("{}-{}.svg", self.name, c.stem);
            if let Err(e) = c.render(&dir.join(&svg)) {
                eprintln!("chart {svg}: {e}");
            }
            let _ = writeln!(md, "![{}]({svg})\n", c.title);
        }
        if !self.notes.is_empty() {
            let _ = writeln!(md, "### Notes\n");
            for n in &self.notes {
                let _ = writeln!(md, "- {n}");
            }
            md.push('\n');
        }
        let json = format!("{}.json", self.name);
        let _ = writeln!(md, "Raw data: [{json}]({json})");
        fs::write(
            dir.join(&json),
            serde_json::to_string_pretty(self).map_err(io::Error::other)?,
        )?;
        let path = dir.join(format!("{}.md", self.name));
        fs::write(&path, md)?;
        Ok(path)
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn numbers_are_compact() {
        for (x, shown) in [
            (1500.0, "1.5K"),
            (2_000_000.0, "2M"),
            (0.25, "0.25"),
            (8.0, "8"),
            (123_456.0, "123K"),
        ] {
            assert_eq!(fmt_num(x), shown, "{x}");
        }
    }

    #[test]
    fn a_report_writes_every_file() {
        let dir = std::env::temp_dir().join(format!("mdl-bench-test-{}", std::process::id()));
        let mut r = Report::new("demo", "Demo", "what it is");
        let mut t = Table::new("main", "A table", &["a", "b"]);
        t.row(vec!["1".into(), "x,y".into()]);
        r.tables.push(t);
        let mut c = Chart::new("qps", "QPS", "threads", "QPS (statements/s)");
        c.line("one", vec![(1.0, 10.0), (2.0, 20.0)]);
        c.line("two", vec![(1.0, 5.0), (2.0, 8.0)]);
        r.charts.push(c.clone());
        c.stem = "log".into();
        c.log_x = true;
        c.log_y = true;
        r.charts.push(c);
        let md = r.write(&dir).unwrap();
        let text = fs::read_to_string(md).unwrap();
        assert!(text.contains("| 1 | x,y |"));
        assert!(fs::read_to_string(dir.join("demo-main.csv"))
            .unwrap()
            .contains("\"x,y\""));
        let svg = fs::read_to_string(dir.join("demo-qps.svg")).unwrap();
        assert!(svg.contains("<svg") && svg.contains("threads") && svg.contains("one"));
        assert!(dir.join("demo-log.svg").exists() && dir.join("demo.json").exists());
        let _ = fs::remove_dir_all(dir);
    }
}
