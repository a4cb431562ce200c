package io.rnic.cli;

import io.rnic.tools.options.CliOption;
import io.rnic.tools.options.Scope;
import org.junit.jupiter.api.Test;

import java.io.IOException;
import java.nio.file.Files;
import java.nio.file.Path;
import java.util.ArrayList;
import java.util.List;
import java.util.regex.Matcher;
import java.util.regex.Pattern;

import static org.junit.jupiter.api.Assertions.assertEquals;
import static org.junit.jupiter.api.Assertions.assertTrue;

/**
 * README.md's command-line sections against the option table: each command's synopsis in the {@code bin/rnic}
 * table shows only options the command takes, the tools' flag tables only options of the tools, and every option of
 * the tools is explained there.
 */
class ReadmeOptionsTest
{
    private static final Pattern FLAG = Pattern.compile("(?<![\\w-])(-{1,2}[A-Za-z][\\w-]*)");

    @Test
    void shouldShowInEachCommandsSynopsisOnlyTheOptionsTheTableGivesIt() throws IOException
    {
        final List<String> wrong = new ArrayList<>();
        int rows = 0;
        for (final String row : section("## `bin/rnic`", "### The perftest-style tools"))
        {
            if (!row.startsWith("| `"))
            {
                continue;
            }
            final String synopsis = row.substring(3, row.indexOf('`', 3));
            final String command = synopsis.split(" ")[0];
            if (!Scope.COMMANDS.contains(command))
            {
                continue; // the tools' row, jmh's
            }
            rows++;
            for (final String flag : flags(synopsis))
            {
                if (!spellingOf(command, flag))
                {
                    wrong.add(command + " " + flag);
                }
            }
        }
        assertTrue(rows >= 10, "command rows: " + rows);
        assertEquals(List.of(), wrong, "README's synopses show options the table does not give the command");
    }

    @Test
    void shouldExplainEveryOptionOfTheToolsAndNoOther() throws IOException
    {
        final List<String> section = section("### The perftest-style tools", "### `rping` and the RDMA CM");
        final List<String> explained = new ArrayList<>();
        final List<String> wrong = new ArrayList<>();
        for (final String line : section)
        {
            if (line.startsWith("| `-"))
            {
                for (final String flag : flags(line.substring(0, line.indexOf(" | ", 2))))
                {
                    explained.add(flag);
                    if (Scope.TOOLS.commandList().stream().noneMatch(tool -> spellingOf(tool, flag)))
                    {
                        wrong.add(flag);
                    }
                }
            }
        }
        assertEquals(List.of(), wrong, "README's tool flags the table gives no tool");
        final String text = String.join("\n", section);
        final List<String> missing = new ArrayList<>();
        for (final CliOption option : CliOption.values())
        {
            final boolean tools = Scope.TOOLS.commandList().stream().anyMatch(option::appliesTo);
            if (tools && option.spellings().stream().noneMatch(spelling -> explained.contains(spelling) ||
                text.contains("`" + spelling)))
            {
                missing.add(option.spelling());
            }
        }
        assertEquals(List.of(), missing, "the tools' options README does not explain");
    }

    private static boolean spellingOf(final String command, final String flag)
    {
        return CliOption.forCommand(command).stream().anyMatch(option -> option.spellings().contains(flag));
    }

    private static List<String> flags(final String text)
    {
        final List<String> flags = new ArrayList<>();
        final Matcher matcher = FLAG.matcher(text);
        while (matcher.find())
        {
            flags.add(matcher.group(1));
        }
        return flags;
    }

    private static List<String> section(final String from, final String to) throws IOException
    {
        final List<String> lines = Files.readAllLines(Path.of("..", "README.md"));
        final int begin = lines.indexOf(from);
        final int end = lines.indexOf(to);
        assertTrue(begin >= 0 && end > begin, "README.md has no section " + from);
        return lines.subList(begin, end);
    }
}
