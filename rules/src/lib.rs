//! agx rule sets: Datalog programs over the facts of a program.
