package io.rnic.cli;

import org.junit.jupiter.api.Test;

import java.io.IOException;
import java.nio.file.Files;
import java.nio.file.Path;
import java.util.HashMap;
import java.util.Map;
import java.util.regex.Matcher;
import java.util.regex.Pattern;

import static org.junit.jupiter.api.Assertions.assertEquals;
import static org.junit.jupiter.api.Assertions.assertTrue;

/**
 * The README's embedding section shows a new project's complete pom: it is {@code deploy/example/pom.xml}, which
 * {@code deploy/test.sh} builds offline after installing rnic (deploy/example/run.sh, {@code mvn -o package}). Kept
 * equal here, so that what a reader copies is what the tests build.
 */
class ReadmeExamplePomTest
{
    private static final String BEGIN = "<!-- example-pom:begin -->\n```xml\n";
    private static final String END = "```\n<!-- example-pom:end -->";

    @Test
    void shouldShowTheExamplesPomInTheReadme() throws IOException
    {
        final Path root = Path.of("..").toAbsolutePath().normalize();
        final String readme = Files.readString(root.resolve("README.md"));
        final int begin = readme.indexOf(BEGIN);
        final int end = readme.indexOf(END, begin);
        assertTrue(begin >= 0 && end > begin, "README.md has no " + BEGIN.strip() + " ... " + END.strip() + " block");

        final String shown = readme.substring(begin + BEGIN.length(), end);
        assertEquals(Files.readString(root.resolve("deploy/example/pom.xml")), shown,
            "README.md's pom and deploy/example/pom.xml differ: copy the file into the README's block");
    }

    @Test
    void shouldPinEveryPluginAnOfflinePackageRunsToTheVersionRnicsBuildInstalled() throws IOException
    {
        final Map<String, String> example = pinnedPlugins(Files.readString(Path.of("..", "deploy", "example",
            "pom.xml")));
        final Map<String, String> parent = pinnedPlugins(Files.readString(Path.of("..", "pom.xml")));
        // `mvn package` of a jar project runs these; Maven's own default versions are not in a fresh ~/.m2
        for (final String plugin : new String[]{ "maven-clean-plugin", "maven-resources-plugin",
            "maven-compiler-plugin", "maven-surefire-plugin", "maven-jar-plugin", "maven-install-plugin" })
        {
            assertTrue(example.containsKey(plugin), plugin + " is not pinned in deploy/example/pom.xml");
            assertEquals(parent.get(plugin), example.get(plugin), plugin + ": deploy/example/pom.xml pins another " +
                "version than rnic's pom.xml, which an offline build after rnic's install does not have");
        }
    }

    /** artifactId to version of every plugin a pom names with a version. */
    private static Map<String, String> pinnedPlugins(final String pom)
    {
        final Map<String, String> versions = new HashMap<>();
        final Matcher matcher = Pattern.compile(
            "<plugin>\\s*<groupId>[^<]*</groupId>\\s*<artifactId>([^<]+)</artifactId>\\s*<version>([^<]+)</version>")
            .matcher(pom);
        while (matcher.find())
        {
            versions.put(matcher.group(1), matcher.group(2));
        }
        return versions;
    }
}
