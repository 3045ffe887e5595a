//! Definitions for the Node-API functions that agent-find's napi registration
//! code refers to. Only Node provides them (the addon is linked with them left
//! undefined); these executables never call them, but the linker and the
//! loader need them. A napi version that refers to another one fails to link
//! with "undefined symbol: napi_...": add it here.

macro_rules! node_api_stubs {
    ($($name:ident),* $(,)?) => {$(
        #[no_mangle]
        pub extern "C" fn $name() -> i32 {
            eprintln!(concat!(stringify!($name), " called outside Node"));
            std::process::abort()
        }
    )*};
}

node_api_stubs!(
    napi_add_env_cleanup_hook,
    napi_call_function,
    napi_call_threadsafe_function,
    napi_coerce_to_string,
    napi_create_array_with_length,
    napi_create_arraybuffer,
    napi_create_double,
    napi_create_error,
    napi_create_external_arraybuffer,
    napi_create_function,
    napi_create_object,
    napi_create_promise,
    napi_create_reference,
    napi_create_string_utf8,
    napi_create_threadsafe_function,
    napi_create_typedarray,
    napi_create_uint32,
    napi_define_properties,
    napi_delete_reference,
    napi_get_and_clear_last_exception,
    napi_get_array_length,
    napi_get_boolean,
    napi_get_cb_info,
    napi_get_element,
    napi_get_global,
    napi_get_named_property,
    napi_get_null,
    napi_get_property_names,
    napi_get_reference_value,
    napi_get_undefined,
    napi_get_value_bool,
    napi_get_value_double,
    napi_get_value_string_utf8,
    napi_get_value_uint32,
    napi_is_array,
    napi_is_error,
    napi_is_exception_pending,
    napi_new_instance,
    napi_reference_unref,
    napi_reject_deferred,
    napi_release_threadsafe_function,
    napi_remove_env_cleanup_hook,
    napi_resolve_deferred,
    napi_set_element,
    napi_set_named_property,
    napi_throw,
    napi_typeof,
    napi_unwrap,
    napi_wrap
);
