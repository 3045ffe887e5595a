//! A JS options object as the core's option fields: each own key with its
//! value copied out of JS (on the event loop, so only copied here; the core
//! validates them off the loop).

use agent_find_core::{FindError, Value};
use napi::bindgen_prelude::*;

/// Lists longer than this are refused rather than copied.
const MAX_LIST: u32 = 10_000;

/// One option's value; a list only at the top (`top`), never nested.
fn option_value(value: &Unknown, top: bool) -> Result<Value> {
    Ok(match value.get_type()? {
        ValueType::Undefined | ValueType::Null => Value::Absent,
        ValueType::Boolean => Value::Bool(unsafe { value.cast::<bool>()? }),
        ValueType::Number => Value::Number(unsafe { value.cast::<f64>()? }),
        ValueType::String => Value::Text(unsafe { value.cast::<String>()? }),
        ValueType::Object if top && value.is_array()? => {
            let array: Object = unsafe { value.cast()? };
            let len = array.get_array_length()?;
            if len > MAX_LIST {
                return Ok(Value::Other("array of more than 10000 items"));
            }
            let mut items = Vec::with_capacity(len as usize);
            for i in 0..len {
                items.push(option_value(&array.get_element::<Unknown>(i)?, false)?);
            }
            Value::List(items)
        }
        ValueType::Object if value.is_array()? => Value::Other("array"),
        ValueType::Object => Value::Other("object"),
        ValueType::Function => Value::Other("function"),
        ValueType::Symbol => Value::Other("symbol"),
        ValueType::BigInt => Value::Other("bigint"),
        _ => Value::Other("value"),
    })
}

/// The options object's own fields, in key order, as the core's values.
pub fn read_options(options: &Unknown) -> std::result::Result<Vec<(String, Value)>, FindError> {
    let fail = |e: napi::Error| FindError::invalid_argument(format!("cannot read the options object: {e}"));
    if options.get_type().map_err(fail)? != ValueType::Object || options.is_array().map_err(fail)? {
        return Err(FindError::invalid_argument("options must be an object such as { pattern: '**/*.ts' }"));
    }
    let object: Object = unsafe { options.cast() }.map_err(fail)?;
    let mut fields = Vec::new();
    for key in Object::keys(&object).map_err(fail)? {
        let value = object.get_named_property::<Unknown>(&key).map_err(fail)?;
        fields.push((key, option_value(&value, true).map_err(fail)?));
    }
    Ok(fields)
}
