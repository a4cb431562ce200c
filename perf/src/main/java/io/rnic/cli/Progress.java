package io.rnic.cli;

import java.io.Console;
import java.io.PrintStream;

/**
 * A line a long run rewrites in place while it works ({@code simulate}, {@code cc-sim}), shown only when the output
 * is a terminal: a log file or a pipe gets the results and nothing else. The line is cleared before the results are
 * printed, so what stays on the screen is what a redirected run writes.
 */
final class Progress
{
    /** How often the line is rewritten: often enough to see the run move, rarely enough to cost nothing. */
    static final long INTERVAL_NS = 500_000_000L;

    private final PrintStream out;
    private final boolean enabled;
    private final long intervalNs;
    private boolean shown;

    Progress(final PrintStream out, final boolean enabled, final long intervalNs)
    {
        this.out = out;
        this.enabled = enabled;
        this.intervalNs = intervalNs;
    }

    /** Shown on {@code out} when this process's console is a terminal (System.console() and isatty), else silent. */
    static Progress onTerminal(final PrintStream out)
    {
        final Console console = System.console();
        return new Progress(out, out == System.out && console != null && console.isTerminal(), INTERVAL_NS);
    }

    boolean enabled()
    {
        return enabled;
    }

    /** How often the run should report, in wall-clock nanoseconds. */
    long intervalNs()
    {
        return intervalNs;
    }

    /** Rewrites the line. */
    void show(final String text)
    {
        if (enabled)
        {
            out.print("\r" + text + "\033[K");
            out.flush();
            shown = true;
        }
    }

    /** Clears the line, before the results are printed. */
    void clear()
    {
        if (shown)
        {
            out.print("\r\033[K");
            out.flush();
            shown = false;
        }
    }
}
