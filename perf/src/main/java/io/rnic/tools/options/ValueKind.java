package io.rnic.tools.options;

/** What an option's value is, which says how the one parser reads and checks it. */
public enum ValueKind
{
    /** A switch: no value. */
    NONE,
    /** A whole number in the option's range. */
    NUMBER,
    /** A size in bytes in the option's range, with perftest's K, M, G (and T) suffixes. */
    SIZE,
    /** A decimal number (a probability, a rate). */
    DECIMAL,
    /** One of the option's choices. */
    CHOICE,
    /** A directory: not empty, which every file call would take for the working directory. */
    DIRECTORY,
    /** A file. */
    FILE,
    /** Text the command reads itself (an address, an interface, a list). */
    TEXT
}
