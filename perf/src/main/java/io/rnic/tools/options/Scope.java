package io.rnic.tools.options;

import io.rnic.tools.ToolKind;

import java.util.ArrayList;
import java.util.Collections;
import java.util.List;
import java.util.function.Predicate;

/**
 * The commands an option applies to: a predicate over {@code bin/rnic}'s command names. The perftest-style tools are
 * named by what kind of tool they are ({@link ToolKind}), the other commands by name.
 */
public record Scope(Predicate<String> commands)
{
    /** Every command of {@code bin/rnic} that parses options (jmh has its own command line, help none). */
    public static final List<String> COMMANDS = commandNames();

    public static final Scope TOOLS = tools(kind -> true);
    public static final Scope PERFTEST = tools(kind -> !kind.isPingpong());
    public static final Scope PINGPONG = tools(ToolKind::isPingpong);
    public static final Scope LATENCY = tools(kind -> kind.isLatency() && !kind.isPingpong());
    /** The bandwidth tools (the pingpongs count as latency tools). */
    public static final Scope BANDWIDTH = tools(kind -> !kind.isLatency());
    public static final Scope ATOMIC = tools(kind -> kind.operation() == ToolKind.Operation.ATOMIC);
    /** The tools whose message size varies: perftest's but the atomics (8 bytes). */
    public static final Scope SIZED =
        tools(kind -> !kind.isPingpong() && kind.operation() != ToolKind.Operation.ATOMIC);

    private static List<String> commandNames()
    {
        final List<String> names = new ArrayList<>(List.of("inspect", "simulate", "cc-sim", "demo", "driver"));
        for (final ToolKind kind : ToolKind.values())
        {
            names.add(kind.command());
        }
        names.addAll(List.of("rping", "mw-peer", "stat", "devinfo", "dpdk-pingpong"));
        return Collections.unmodifiableList(names);
    }

    /** The commands named. */
    public static Scope of(final String... names)
    {
        final List<String> list = List.of(names);
        return new Scope(list::contains);
    }

    /** The perftest-style tools of the kinds {@code kinds} accepts. */
    public static Scope tools(final Predicate<ToolKind> kinds)
    {
        return new Scope(command ->
        {
            final ToolKind kind = ToolKind.byCommand(command);
            return kind != null && kinds.test(kind);
        });
    }

    public boolean includes(final String command)
    {
        return commands.test(command);
    }

    public Scope or(final Scope other)
    {
        return new Scope(commands.or(other.commands));
    }

    public Scope and(final Scope other)
    {
        return new Scope(commands.and(other.commands));
    }

    public Scope negate()
    {
        return new Scope(commands.negate());
    }

    public Scope except(final String... names)
    {
        final List<String> list = List.of(names);
        return new Scope(commands.and(command -> !list.contains(command)));
    }

    /** The commands of {@link #COMMANDS} in this scope, in their order. */
    public List<String> commandList()
    {
        return COMMANDS.stream().filter(commands).toList();
    }
}
