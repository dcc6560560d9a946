# opemu: source this file to use the emulated toolkit as a CANN / MACA install. It exports what the
# vendor's set_env.sh does, pointed at this prefix.
_opemu_prefix="$(cd "$(dirname "${BASH_SOURCE[0]:-$0}")" && pwd)"
export ASCEND_TOOLKIT_HOME="${_opemu_prefix}"
export ASCEND_HOME_PATH="${_opemu_prefix}"
export ASCEND_OPP_PATH="${_opemu_prefix}/opp"
export ASCEND_AICPU_PATH="${_opemu_prefix}"
export TOOLCHAIN_HOME="${_opemu_prefix}/toolkit"
export MACA_PATH="${_opemu_prefix}"
export LD_LIBRARY_PATH="${_opemu_prefix}/lib64:${_opemu_prefix}/lib${LD_LIBRARY_PATH:+:${LD_LIBRARY_PATH}}"
export PYTHONPATH="${_opemu_prefix}/python/site-packages${PYTHONPATH:+:${PYTHONPATH}}"
export PATH="${_opemu_prefix}/bin${PATH:+:${PATH}}"
unset _opemu_prefix
