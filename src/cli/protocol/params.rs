//! Strict reading of tool parameters: unknown keys and wrong types are `invalid_params`
//! refusals, matching the `additionalProperties:false` schemas.

use serde_json::{Map, Value};

use pi_context::history::{Role, UnknownRole};
use pi_context::session::{Harness, UnknownHarness};

use super::Refusal;

pub struct Params<'a> {
    map: &'a Map<String, Value>,
}

fn invalid(message: String) -> Refusal {
    Refusal::new("invalid_params", message)
}

impl<'a> Params<'a> {
    /// Accepts an object (or null/absent as `{}`) whose keys are all in `allowed`.
    pub fn new(value: &'a Value, allowed: &[&str]) -> Result<Self, Refusal> {
        static EMPTY: std::sync::OnceLock<Map<String, Value>> = std::sync::OnceLock::new();
        let map = match value {
            Value::Object(map) => map,
            Value::Null => EMPTY.get_or_init(Map::new),
            _ => return Err(invalid("params must be an object".into())),
        };
        if let Some(key) = map.keys().find(|k| !allowed.contains(&k.as_str())) {
            return Err(invalid(format!(
                "unknown parameter {key:?}; accepted: {}",
                allowed.join(", ")
            )));
        }
        Ok(Params { map })
    }

    pub fn get(&self, key: &str) -> Option<&'a Value> {
        self.map.get(key).filter(|v| !v.is_null())
    }

    /// An integer within `[min, max]`.
    pub fn int(&self, key: &str, min: i64, max: i64) -> Result<Option<i64>, Refusal> {
        let Some(value) = self.get(key) else {
            return Ok(None);
        };
        let n = value
            .as_i64()
            .or_else(|| {
                value
                    .as_f64()
                    .filter(|f| f.fract() == 0.0 && f.abs() < 9.0e15)
                    .map(|f| f as i64)
            })
            .ok_or_else(|| invalid(format!("{key} must be an integer")))?;
        if n < min || n > max {
            let range = if max == i64::MAX {
                format!("at least {min}")
            } else {
                format!("between {min} and {max}")
            };
            return Err(invalid(format!("{key} must be {range}")));
        }
        Ok(Some(n))
    }

    pub fn positive(&self, key: &str) -> Result<Option<u64>, Refusal> {
        // Integers above i64::MAX are still positive integers (a seq beyond the file, say).
        if let Some(n) = self.get(key).and_then(Value::as_u64).filter(|&n| n >= 1) {
            return Ok(Some(n));
        }
        Ok(self.int(key, 1, i64::MAX)?.map(|n| n as u64))
    }

    pub fn string(&self, key: &str) -> Result<Option<&'a str>, Refusal> {
        match self.get(key) {
            None => Ok(None),
            Some(Value::String(s)) => Ok(Some(s)),
            Some(_) => Err(invalid(format!("{key} must be a string"))),
        }
    }

    pub fn boolean(&self, key: &str) -> Result<Option<bool>, Refusal> {
        match self.get(key) {
            None => Ok(None),
            Some(Value::Bool(b)) => Ok(Some(*b)),
            Some(_) => Err(invalid(format!("{key} must be true or false"))),
        }
    }

    pub fn string_array(&self, key: &str) -> Result<Option<Vec<&'a str>>, Refusal> {
        match self.get(key) {
            None => Ok(None),
            Some(Value::Array(items)) => items
                .iter()
                .map(|v| {
                    v.as_str()
                        .ok_or_else(|| invalid(format!("{key} must be an array of strings")))
                })
                .collect::<Result<Vec<_>, _>>()
                .map(Some),
            Some(_) => Err(invalid(format!("{key} must be an array of strings"))),
        }
    }

    /// A non-empty list of history roles.
    pub fn roles(&self, key: &str) -> Result<Option<Vec<Role>>, Refusal> {
        self.parsed_names::<Role, UnknownRole>(key)
    }

    /// A non-empty array of harness names (`pi`, `claude`, `codex`).
    pub fn harnesses(&self, key: &str) -> Result<Option<Vec<Harness>>, Refusal> {
        self.parsed_names::<Harness, UnknownHarness>(key)
    }

    /// A non-empty array of strings, each parsed as `T`; a name `T` does not know is refused
    /// with its parse error.
    fn parsed_names<T, E>(&self, key: &str) -> Result<Option<Vec<T>>, Refusal>
    where
        T: std::str::FromStr<Err = E>,
        E: std::fmt::Display,
    {
        let Some(names) = self.string_array(key)? else {
            return Ok(None);
        };
        if names.is_empty() {
            return Err(invalid(format!("{key} must not be empty")));
        }
        names
            .iter()
            .map(|name| name.parse().map_err(|e: E| invalid(e.to_string())))
            .collect::<Result<Vec<_>, _>>()
            .map(Some)
    }
}
