//! Witnesses: the inputs and the schedule of one run, replayable by [`replay`].
//!
//! ```json
//! { "format": "agx-witness", "version": 1, "program": "lazy01.c", "data_model": "ilp32",
//!   "uninit": "zero", "inputs": [{ "value": -1, "type": "i32" }], "schedule": [0, 1, 1, 0] }
//! ```
//! The schedule lists the thread of every step (the step convention of the module
//! documentation); each input names the type the program reads, and replay checks it.

use super::config::{
    InputFallback, InputPolicy, InputValue, RunConfig, ScheduleFallback, SchedulePolicy,
    UninitPolicy,
};
use super::outcome::{Execution, RuntimeError, ThreadId};
use super::run;
use analysis::ir::{DataModel, Program, Scalar};
use serde::{Deserialize, Deserializer, Serialize, Serializer};

/// The format tag of a witness file.
pub const WITNESS_FORMAT: &str = "agx-witness";
/// The witness version this build writes; it reads every version up to this one.
pub const WITNESS_VERSION: u32 = 1;

/// Everything needed to replay one run of a program.
#[derive(Clone, Debug, PartialEq, Eq, Serialize, Deserialize)]
pub struct Witness {
    /// Always [`WITNESS_FORMAT`].
    pub format: String,
    pub version: u32,
    /// The program file the witness was recorded on (informational).
    pub program: String,
    /// `ilp32` or `lp64`: the program must be lowered with the same data model.
    pub data_model: String,
    pub uninit: UninitPolicy,
    pub inputs: Vec<WitnessInput>,
    /// The thread of each step. A step of a thread waiting on a condition is a
    /// spurious wake-up.
    pub schedule: Vec<ThreadId>,
    /// Whether the schedule may wake a waiting thread spuriously (see
    /// [`RunConfig::spurious_wakeups`]). Default (absent): `true`.
    #[serde(default = "yes")]
    pub spurious_wakeups: bool,
    /// Whether the replay detects data races ([`RunConfig::detect_races`]): a race
    /// witness. Default (absent): `false`.
    #[serde(default, skip_serializing_if = "std::ops::Not::not")]
    pub data_races: bool,
    /// `argv[1..]` of the run (`RunConfig::args`). Default (absent): none.
    #[serde(default, skip_serializing_if = "Vec::is_empty")]
    pub args: Vec<String>,
    /// The program context the run starts from ([`crate::context`]); absent: `main`.
    /// The inputs then begin with the initial state's values (source `initial`).
    #[serde(default, skip_serializing_if = "Option::is_none")]
    pub context: Option<crate::context::Context>,
}

fn yes() -> bool {
    true
}

/// One input of a witness.
#[derive(Clone, Copy, Debug, PartialEq, Eq, Serialize, Deserialize)]
pub struct WitnessInput {
    /// The value as the type reads it (signed types sign-extended).
    pub value: i128,
    #[serde(rename = "type")]
    pub ty: InputType,
}

/// A scalar type in a witness, written `i32`, `u8`, `ptr`, ...
#[derive(Clone, Copy, Debug, PartialEq, Eq)]
pub struct InputType(pub Scalar);

impl Serialize for InputType {
    fn serialize<S: Serializer>(&self, s: S) -> Result<S::Ok, S::Error> {
        s.collect_str(&self.0)
    }
}

impl<'de> Deserialize<'de> for InputType {
    fn deserialize<D: Deserializer<'de>>(d: D) -> Result<Self, D::Error> {
        let text = String::deserialize(d)?;
        parse_scalar(&text).map(InputType).ok_or_else(|| {
            serde::de::Error::custom(format!(
                "unknown type `{text}` (i8..i64, u8..u64, f32, f64, ptr)"
            ))
        })
    }
}

fn parse_scalar(text: &str) -> Option<Scalar> {
    if text == "ptr" {
        return Some(Scalar::Ptr);
    }
    match text {
        "f32" => return Some(Scalar::F32),
        "f64" => return Some(Scalar::F64),
        _ => {}
    }
    let (signed, bits) = match text.split_at_checked(1)? {
        ("i", bits) => (true, bits),
        ("u", bits) => (false, bits),
        _ => return None,
    };
    match bits.parse::<u8>().ok()? {
        bits @ (8 | 16 | 32 | 64) => Some(Scalar::Int { bits, signed }),
        _ => None,
    }
}

fn data_model_name(dm: DataModel) -> &'static str {
    match dm {
        DataModel::Ilp32 => "ilp32",
        DataModel::Lp64 => "lp64",
    }
}

impl Witness {
    /// The witness of `execution`, a run of `program` (file name `program_name`) under
    /// `config`. The execution must have recorded its trace.
    pub fn from_execution(
        program_name: &str,
        program: &Program,
        config: &RunConfig,
        execution: &Execution,
    ) -> Witness {
        Witness {
            format: WITNESS_FORMAT.to_string(),
            version: WITNESS_VERSION,
            program: program_name.to_string(),
            data_model: data_model_name(program.data_model).to_string(),
            uninit: config.uninit,
            spurious_wakeups: config.spurious_wakeups,
            data_races: config.detect_races,
            args: config.args.clone(),
            inputs: execution
                .inputs
                .iter()
                .map(|i| WitnessInput {
                    value: i.value,
                    ty: InputType(i.ty),
                })
                .collect(),
            schedule: execution.schedule(),
            context: config.context.clone(),
        }
    }

    /// The run configuration that replays this witness: its inputs (then zeros), its
    /// schedule (then round-robin), its uninitialized-value policy.
    pub fn config(&self) -> RunConfig {
        RunConfig {
            schedule: SchedulePolicy::List {
                threads: self.schedule.clone(),
                then: ScheduleFallback::RoundRobin,
            },
            inputs: InputPolicy {
                values: self
                    .inputs
                    .iter()
                    .map(|i| InputValue {
                        value: i.value,
                        ty: Some(i.ty.0),
                    })
                    .collect(),
                fallback: InputFallback::Zero,
            },
            uninit: self.uninit,
            spurious_wakeups: self.spurious_wakeups,
            detect_races: self.data_races,
            args: self.args.clone(),
            context: self.context.clone(),
            ..RunConfig::default()
        }
    }

    /// Checks the format tag, version and data model against `program`.
    pub fn check(&self, program: &Program) -> Result<(), RuntimeError> {
        if self.format != WITNESS_FORMAT {
            return Err(RuntimeError::Witness(format!(
                "format is `{}`, expected `{WITNESS_FORMAT}`",
                self.format
            )));
        }
        if self.version == 0 || self.version > WITNESS_VERSION {
            return Err(RuntimeError::Witness(format!(
                "version {} is not supported (this build reads 1..={WITNESS_VERSION})",
                self.version
            )));
        }
        let expected = data_model_name(program.data_model);
        if self.data_model != expected {
            return Err(RuntimeError::Witness(format!(
                "recorded under data model `{}` but the program was lowered with `{expected}` \
                 (use --data-model {})",
                self.data_model, self.data_model
            )));
        }
        Ok(())
    }
}

/// Replays `witness` on `program`.
pub fn replay(program: &Program, witness: &Witness) -> Result<Execution, RuntimeError> {
    witness.check(program)?;
    run(program, &witness.config())
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn input_types_round_trip_through_text() {
        for ty in [
            Scalar::I8,
            Scalar::Int {
                bits: 16,
                signed: false,
            },
            Scalar::I32,
            Scalar::U64,
            Scalar::Ptr,
        ] {
            assert_eq!(parse_scalar(&ty.to_string()), Some(ty));
        }
        assert_eq!(parse_scalar("i7"), None);
        assert_eq!(parse_scalar("x32"), None);
        assert_eq!(parse_scalar(""), None);
    }

    #[test]
    fn witness_json_round_trips() {
        let w = Witness {
            format: WITNESS_FORMAT.into(),
            version: WITNESS_VERSION,
            program: "a.c".into(),
            data_model: "ilp32".into(),
            uninit: UninitPolicy::Nondet,
            inputs: vec![
                WitnessInput {
                    value: -1,
                    ty: InputType(Scalar::I32),
                },
                WitnessInput {
                    value: u64::MAX.into(),
                    ty: InputType(Scalar::U64),
                },
            ],
            schedule: vec![ThreadId(0), ThreadId(1)],
            spurious_wakeups: false,
            data_races: true,
            args: vec!["-v".into(), "input.txt".into()],
            context: None,
        };
        let text = serde_json::to_string(&w).unwrap();
        assert!(text.contains(r#"{"value":-1,"type":"i32"}"#), "{text}");
        assert!(!text.contains("context"), "{text}");
        assert_eq!(serde_json::from_str::<Witness>(&text).unwrap(), w);
        use crate::context::{AbsObj, CellOwner, Context, Target};
        let in_context = Witness {
            context: Some(Context {
                threads: vec![analysis::ir::FuncId(2), analysis::ir::FuncId(2)],
                starts: vec![
                    None,
                    Some(crate::context::StartPoint {
                        stmt: analysis::ir::StmtId(4),
                        block: 1,
                        index: 2,
                        location: "a.c:7".into(),
                        regs: vec![
                            (analysis::ir::RegId(1), crate::context::RegStart::Known(3)),
                            (
                                analysis::ir::RegId(2),
                                crate::context::RegStart::Input {
                                    bits: 32,
                                    signed: true,
                                },
                            ),
                            (
                                analysis::ir::RegId(3),
                                crate::context::RegStart::Pointer(vec![Target::Func(
                                    analysis::ir::FuncId(1),
                                )]),
                            ),
                        ],
                        held: vec![crate::context::HeldLock::Reg(analysis::ir::RegId(3))],
                        maybe_held: vec![crate::context::HeldLock::Addr {
                            obj: analysis::ir::ObjId(0),
                            offset: 8,
                        }],
                        waiter: Some(crate::context::WaitStart {
                            stmt: analysis::ir::StmtId(5),
                            block: 1,
                            index: 3,
                            cond: crate::context::HeldLock::Addr {
                                obj: analysis::ir::ObjId(0),
                                offset: 0,
                            },
                            mutex: crate::context::HeldLock::Reg(analysis::ir::RegId(3)),
                            dst: None,
                            held: Vec::new(),
                        }),
                        non_null: vec![analysis::ir::RegId(3)],
                    }),
                ],
                fixed: vec![analysis::ir::ObjId(0)],
                params: vec![(
                    (analysis::ir::FuncId(2), 0),
                    vec![Target::Func(analysis::ir::FuncId(1))],
                )],
                non_null: vec![(analysis::ir::FuncId(2), 0)],
                known_cells: vec![crate::context::KnownCell {
                    obj: analysis::ir::ObjId(5),
                    offset: 4,
                    bytes: 4,
                    bits: 10,
                }],
                cells: vec![(
                    (
                        CellOwner::Instance(AbsObj::Heap(analysis::ir::StmtId(4))),
                        8,
                    ),
                    vec![Target::Instance {
                        obj: AbsObj::Slot(analysis::ir::ObjId(3)),
                        size: Some(16),
                        offsets: vec![0, 8],
                    }],
                )],
                any_cells: Vec::new(),
            }),
            ..w
        };
        let text = serde_json::to_string(&in_context).unwrap();
        assert_eq!(serde_json::from_str::<Witness>(&text).unwrap(), in_context);
    }
}
