//! Values: every column holds an `i64`. Numbers are themselves; a symbol is an agx atom
//! (statement, function, variable, object, file: its `.facts` prefix and id) or an
//! interned string, tagged in the high bits so that atoms of different kinds never meet.

use analysis::facts::{AtomNames, Field};
use std::collections::HashMap;

const TAG_SHIFT: u32 = 40;
const ATOM_PREFIXES: [char; 5] = ['s', 'f', 'v', 'o', 'F'];
const STRING_TAG: i64 = 6;

/// The symbol table: atom labels (for printing) and interned strings.
#[derive(Clone, Debug, Default)]
pub struct Symbols {
    pub names: AtomNames,
    strings: Vec<String>,
    by_string: HashMap<String, i64>,
}

fn tag_of(prefix: char) -> Option<i64> {
    ATOM_PREFIXES
        .iter()
        .position(|&p| p == prefix)
        .map(|i| i as i64 + 1)
}

/// The value of atom `prefix<id>`.
pub fn atom(prefix: char, id: u32) -> i64 {
    let tag = tag_of(prefix).expect("known atom prefix");
    (tag << TAG_SHIFT) | i64::from(id)
}

/// The value of a fact's field.
pub fn field(f: Field) -> i64 {
    match f {
        Field::Atom(p, id) => atom(p, id),
        Field::Number(n) => n,
    }
}

/// The `(prefix, id)` of an atom value.
pub fn as_atom(v: i64) -> Option<(char, u32)> {
    let tag = v >> TAG_SHIFT;
    if (1..=ATOM_PREFIXES.len() as i64).contains(&tag) {
        Some((
            ATOM_PREFIXES[tag as usize - 1],
            (v & ((1 << TAG_SHIFT) - 1)) as u32,
        ))
    } else {
        None
    }
}

impl Symbols {
    pub fn new(names: AtomNames) -> Symbols {
        Symbols {
            names,
            ..Symbols::default()
        }
    }

    /// A string constant of a rule or a built-in relation. A string in agx's atom syntax
    /// (`s12`, `s12@file.c:5`, `f3`, ...) is that atom, as in the `.facts` files.
    pub fn intern_literal(&mut self, s: &str) -> i64 {
        let id_part = s.split_once('@').map_or(s, |(a, _)| a);
        let mut chars = id_part.chars();
        if let Some(p) = chars.next() {
            let digits = chars.as_str();
            if tag_of(p).is_some()
                && !digits.is_empty()
                && digits.bytes().all(|b| b.is_ascii_digit())
            {
                if let Ok(id) = digits.parse::<u32>() {
                    return atom(p, id);
                }
            }
        }
        self.intern(s)
    }

    /// An interned string (never an atom).
    pub fn intern(&mut self, s: &str) -> i64 {
        if let Some(&v) = self.by_string.get(s) {
            return v;
        }
        let v = (STRING_TAG << TAG_SHIFT) | self.strings.len() as i64;
        self.strings.push(s.to_string());
        self.by_string.insert(s.to_string(), v);
        v
    }

    /// The label of an atom (`file:line` of a statement, a function's name, ...).
    pub fn label(&self, v: i64) -> Option<&str> {
        let (p, id) = as_atom(v)?;
        let list = match p {
            's' => &self.names.stmts,
            'f' => &self.names.funcs,
            'v' => &self.names.vars,
            'o' => &self.names.objs,
            _ => &self.names.files,
        };
        list.get(id as usize)
            .map(String::as_str)
            .filter(|s| !s.is_empty())
    }

    /// A symbol as the `.facts` files write it: `s12@file.c:5`, or the string itself.
    pub fn render(&self, v: i64) -> String {
        if let Some((p, id)) = as_atom(v) {
            return match self.label(v) {
                Some(l) => format!("{p}{id}@{l}"),
                None => format!("{p}{id}"),
            };
        }
        if v >> TAG_SHIFT == STRING_TAG {
            if let Some(s) = self.strings.get((v & ((1 << TAG_SHIFT) - 1)) as usize) {
                return s.clone();
            }
        }
        format!("?{v}")
    }
}
