//! agx explorer: the reference interpreter and the symbolic search.
