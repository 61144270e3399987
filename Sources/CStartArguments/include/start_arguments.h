#ifndef THERMTOP_START_ARGUMENTS_H
#define THERMTOP_START_ARGUMENTS_H
// Nothing to import: the target's work is done at link time and by a constructor (see
// start_arguments.c). SwiftPM wants a public headers folder for a C target.
#endif
