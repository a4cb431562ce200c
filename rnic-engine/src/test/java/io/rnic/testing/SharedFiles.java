package io.rnic.testing;

import java.nio.file.Files;
import java.nio.file.Path;
import java.nio.file.Paths;

/**
 * Finds the project's {@code shared/} folder (vectors, reference card, captures), which sits beside the
 * repository. Tests that need it fail with a clear message when it is missing, rather than skipping.
 */
public final class SharedFiles
{
    public static final String SHARED_DIR_PROP_NAME = "rnic.shared.dir";

    private SharedFiles()
    {
    }

    public static Path sharedDir()
    {
        final String configured = System.getProperty(SHARED_DIR_PROP_NAME);
        if (configured != null && !configured.isBlank() && Files.isDirectory(Paths.get(configured, "vectors")))
        {
            return Paths.get(configured).toAbsolutePath().normalize();
        }
        final Path cwd = Paths.get(System.getProperty("user.dir")).toAbsolutePath();
        for (final String candidate : new String[]{ "../../shared", "../shared", "shared" })
        {
            final Path path = cwd.resolve(candidate).normalize();
            if (Files.isDirectory(path.resolve("vectors")))
            {
                return path;
            }
        }
        throw new IllegalStateException("shared/ folder with vectors/ not found: set -D" + SHARED_DIR_PROP_NAME +
            " or place it beside the repository (looked from " + cwd + ")");
    }

    public static Path vectors(final String fileName)
    {
        return sharedDir().resolve("vectors").resolve(fileName);
    }
}
