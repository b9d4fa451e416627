/*
 * doctor.h - `abb_tool doctor`: checks a machine for the board (doctor.c).
 */
#ifndef ABB_TOOL_DOCTOR_H
#define ABB_TOOL_DOCTOR_H

/* argv: the words after "doctor" ([URI] [--root DIR] [--buffer SIZE]);
 * uri: the one given with -d before the command, or NULL. Returns the exit
 * status: 0 all checks passed, 1 a problem remains, 2 usage. */
int abb_doctor(int argc, char **argv, const char *uri);

#endif
