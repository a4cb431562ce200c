package io.rnic.tools.perftest;

import io.rnic.tools.ToolKind;

import java.util.function.Predicate;

/**
 * One option of the perftest-style tools, declared once with the tools that take it: its place in the synopsis
 * ({@code [-s SIZE]}, or null when only the help explains it), its other spellings for the help's "Long forms" line,
 * and its help text. A tool's usage is built from the declarations that apply to it, so it shows only what the tool
 * takes; {@code ToolUsageTest} parses each flag a usage shows.
 *
 * @param synopsis  the synopsis fragment, brackets included ({@code [--ip ADDR/PREFIX]...}), or null.
 * @param longForms the option's spellings, short first ({@code -n --iters}), for "Long forms", or null.
 * @param tools     the tools that take it.
 * @param help      its lines in the help, formatted, or null.
 */
record ToolFlag(String synopsis, String longForms, Predicate<ToolKind> tools, String help)
{
    /** An option in the synopsis of {@code tools}. */
    static ToolFlag flag(final String synopsis, final Predicate<ToolKind> tools)
    {
        return new ToolFlag(synopsis, null, tools, null);
    }

    /** Help text only: an option the synopsis leaves out, or a note. */
    static ToolFlag helpOnly(final Predicate<ToolKind> tools, final String... lines)
    {
        return new ToolFlag(null, null, tools, String.join("\n", lines));
    }

    ToolFlag help(final String... lines)
    {
        return new ToolFlag(synopsis, longForms, tools, String.join("\n", lines));
    }

    ToolFlag longForms(final String spellings)
    {
        return new ToolFlag(synopsis, spellings, tools, help);
    }

    boolean appliesTo(final ToolKind kind)
    {
        return tools.test(kind);
    }
}
