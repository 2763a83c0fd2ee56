SELECT name, severity, source, value FROM stats WHERE name GLOB 'ftrace_abi_errors_*';
