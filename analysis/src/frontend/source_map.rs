//! Maps byte offsets of preprocessed text back to original files and lines through gcc's
//! line markers (`# LINE "FILE" FLAGS...`).

use super::SourceLoc;
use crate::ir::{FileId, Span};

/// Line starts of the preprocessed text and the line markers found in it.
#[derive(Clone, Debug)]
pub struct SourceMap {
    files: Vec<String>,
    /// Byte offset where each preprocessed line starts.
    line_starts: Vec<usize>,
    /// `(preprocessed line index of the marker, file, original line of the next line)`.
    markers: Vec<(usize, FileId, u32)>,
    /// Byte offsets where a `__thread` keyword stood.
    thread_locals: Vec<usize>,
}

impl SourceMap {
    /// Builds the map; `default_file` names the text before any line marker.
    pub fn new(text: &str, default_file: &str, thread_locals: Vec<usize>) -> SourceMap {
        let mut map = SourceMap {
            files: vec![default_file.to_string()],
            line_starts: vec![0],
            markers: Vec::new(),
            thread_locals,
        };
        for (i, b) in text.bytes().enumerate() {
            if b == b'\n' {
                map.line_starts.push(i + 1);
            }
        }
        for (idx, &start) in map.line_starts.iter().enumerate() {
            let end = text[start..].find('\n').map_or(text.len(), |e| start + e);
            if let Some((line, file)) = parse_marker(&text[start..end]) {
                let id = match map.files.iter().position(|f| *f == file) {
                    Some(i) => FileId(i as u32),
                    None => {
                        map.files.push(file);
                        FileId((map.files.len() - 1) as u32)
                    }
                };
                map.markers.push((idx, id, line));
            }
        }
        map
    }

    /// The file names, indexed by [`FileId`].
    pub fn files(&self) -> &[String] {
        &self.files
    }

    pub fn span(&self, _text: &str, offset: usize) -> Span {
        let line_idx = match self.line_starts.binary_search(&offset) {
            Ok(i) => i,
            Err(i) => i - 1,
        };
        let col = (offset - self.line_starts[line_idx]) as u32 + 1;
        let marker = match self.markers.binary_search_by(|m| m.0.cmp(&line_idx)) {
            Ok(i) => Some(i),
            Err(0) => None,
            Err(i) => Some(i - 1),
        };
        match marker {
            // The offset is on a marker line itself: attribute it to the marker's line.
            Some(i) if self.markers[i].0 == line_idx => Span {
                file: self.markers[i].1,
                line: self.markers[i].2,
                col,
            },
            Some(i) => {
                let (m_idx, file, line) = self.markers[i];
                Span {
                    file,
                    line: line + (line_idx - m_idx - 1) as u32,
                    col,
                }
            }
            None => Span {
                file: FileId(0),
                line: line_idx as u32 + 1,
                col,
            },
        }
    }

    pub fn loc(&self, text: &str, offset: usize) -> SourceLoc {
        let span = self.span(text, offset);
        SourceLoc {
            file: self.files[span.file.index()].clone(),
            line: span.line,
        }
    }

    /// True when a `__thread` keyword stood within `start..end`.
    pub fn has_thread_local_in(&self, start: usize, end: usize) -> bool {
        let i = self.thread_locals.partition_point(|&o| o < start);
        self.thread_locals.get(i).is_some_and(|&o| o < end)
    }
}

/// Parses `# 12 "file.c" 1 3` (or `#line 12 "file.c"`) into `(12, "file.c")`.
fn parse_marker(line: &str) -> Option<(u32, String)> {
    let rest = line.strip_prefix('#')?.trim_start();
    let rest = rest.strip_prefix("line").unwrap_or(rest).trim_start();
    let digits_end = rest.find(|c: char| !c.is_ascii_digit())?;
    if digits_end == 0 {
        return None;
    }
    let num: u32 = rest[..digits_end].parse().ok()?;
    let rest = rest[digits_end..].trim_start();
    let quoted = rest.strip_prefix('"')?;
    Some((num, unescape_file_name(quoted)?))
}

/// Reads a file name up to its closing quote. gcc writes `"` and `\` in names as `\"` and
/// `\\`, and bytes it cannot print as three octal digits (`\012`).
fn unescape_file_name(quoted: &str) -> Option<String> {
    let mut bytes = Vec::new();
    let mut it = quoted.bytes().peekable();
    while let Some(b) = it.next() {
        match b {
            b'"' => return Some(String::from_utf8_lossy(&bytes).into_owned()),
            b'\\' => match it.next()? {
                d @ b'0'..=b'7' => {
                    let mut value = u32::from(d - b'0');
                    for _ in 0..2 {
                        match it.peek() {
                            Some(&o @ b'0'..=b'7') => {
                                value = value * 8 + u32::from(o - b'0');
                                it.next();
                            }
                            _ => break,
                        }
                    }
                    bytes.push(value as u8);
                }
                other => bytes.push(other),
            },
            other => bytes.push(other),
        }
    }
    None
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn maps_offsets_through_markers() {
        let text = "# 1 \"a.c\"\nint x;\n# 10 \"b.h\" 1\nint y;\nint z;\n# 3 \"a.c\" 2\nint w;\n";
        let map = SourceMap::new(text, "<input>", vec![]);
        let at = |needle: &str| map.loc(text, text.find(needle).unwrap()).to_string();
        assert_eq!(at("int x"), "a.c:1");
        assert_eq!(at("int y"), "b.h:10");
        assert_eq!(at("int z"), "b.h:11");
        assert_eq!(at("int w"), "a.c:3");
    }

    #[test]
    fn marker_file_names_are_unescaped() {
        // What gcc writes for a file in the directory `q"x\y` and for a byte it cannot print.
        let text = "# 1 \"/tmp/q\\\"x\\\\y/a b.c\"\nint x;\n# 7 \"tab\\011.c\" 1\nint y;\n";
        let map = SourceMap::new(text, "<input>", vec![]);
        let at = |needle: &str| map.loc(text, text.find(needle).unwrap()).to_string();
        assert_eq!(at("int x"), "/tmp/q\"x\\y/a b.c:1");
        assert_eq!(at("int y"), "tab\t.c:7");
        assert_eq!(parse_marker("# 3 \"unterminated"), None);
    }

    #[test]
    fn text_without_markers_uses_default_name() {
        let text = "int x;\nint y;\n";
        let map = SourceMap::new(text, "t.i", vec![]);
        assert_eq!(map.loc(text, 8).to_string(), "t.i:2");
    }

    #[test]
    fn thread_local_lookup() {
        let map = SourceMap::new("x", "t.i", vec![5, 40]);
        assert!(map.has_thread_local_in(0, 10));
        assert!(!map.has_thread_local_in(6, 39));
        assert!(map.has_thread_local_in(40, 41));
    }
}
