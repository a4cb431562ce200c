package io.rnic.cli;

import io.rnic.cnc.CncException;
import io.rnic.cnc.CncFile;
import io.rnic.tools.Ports;
import io.rnic.tools.UsageException;

import java.io.IOException;
import java.nio.file.Files;
import java.nio.file.Path;
import java.util.List;
import java.util.stream.Stream;

/**
 * Where the commands that read a driver ({@code stat}, {@code devinfo}) find its CnC file: {@code --dir DIR}, or
 * {@code -d IFACE} for the driver's default directory {@code /dev/shm/rnic-<IFACE>}, or, with neither, the one
 * driver directory under {@code /dev/shm}.
 */
final class CncDirectory
{
    static final Path SHM = Path.of("/dev/shm");
    static final String PREFIX = "rnic-";
    private CncDirectory()
    {
    }

    /** The default directory of a driver on {@code iface} ({@code option}'s value) (or its device, rnic_IFACE), as the driver chooses it. */
    static Path ofInterface(final String option, final String iface)
    {
        if (iface.isEmpty() || iface.contains("/"))
        {
            throw new UsageException(option + " takes an interface name, not '" + iface + "'");
        }
        return SHM.resolve(PREFIX + Ports.interfaceOf(iface));
    }

    /** The only {@code /dev/shm/rnic-*} directory holding a CnC file; a one-line error when none or several do. */
    static Path only(final Path root)
    {
        final List<Path> found;
        try (Stream<Path> entries = Files.list(root))
        {
            found = entries
                .filter(path -> path.getFileName().toString().startsWith(PREFIX))
                .filter(path -> Files.exists(path.resolve(CncFile.FILE_NAME)))
                .sorted()
                .toList();
        }
        catch (final IOException ex)
        {
            throw new CncException("cannot list " + root + ": " + ex.getMessage());
        }
        if (found.isEmpty())
        {
            throw new CncException("no rnic driver in " + root + " (no " + PREFIX + "*/" + CncFile.FILE_NAME +
                "): start one with bin/rnic driver -d IFACE, or name its directory with --dir DIR");
        }
        if (found.size() > 1)
        {
            throw new UsageException("several rnic drivers in " + root + " (" +
                String.join(", ", found.stream().map(Path::toString).toList()) + "): choose one with -d IFACE or --dir DIR");
        }
        return found.get(0);
    }
}
