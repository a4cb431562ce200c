package io.rnic;

import com.tngtech.archunit.base.DescribedPredicate;
import com.tngtech.archunit.core.domain.JavaClass;
import com.tngtech.archunit.core.domain.JavaClasses;
import com.tngtech.archunit.core.importer.ClassFileImporter;
import com.tngtech.archunit.core.importer.ImportOption;
import org.junit.jupiter.api.BeforeAll;
import org.junit.jupiter.api.Test;

import static com.tngtech.archunit.base.DescribedPredicate.not;
import static com.tngtech.archunit.core.domain.JavaClass.Predicates.resideInAPackage;
import static com.tngtech.archunit.core.domain.JavaClass.Predicates.resideInAnyPackage;
import static com.tngtech.archunit.lang.syntax.ArchRuleDefinition.noClasses;
import static com.tngtech.archunit.library.dependencies.SlicesRuleDefinition.slices;
import static org.junit.jupiter.api.Assertions.assertTrue;

/**
 * The package rule (README, "Modules"): package dependencies read one way, from the tools down to the wire format.
 * It lives in perf because perf is the module whose class path holds every other module's main classes. Tests and
 * JMH's generated code are left out: they are not the product and may reach across layers.
 */
class ArchitectureTest
{
    private static JavaClasses classes;

    @BeforeAll
    static void importMainClasses()
    {
        classes = new ClassFileImporter()
            .withImportOption(ImportOption.Predefined.DO_NOT_INCLUDE_TESTS)
            .withImportOption(location -> !location.contains("-tests.jar") && !location.contains("/jmh_generated/"))
            .importPackages("io.rnic");
        // the rules below would hold vacuously over an empty import
        assertTrue(classes.contain("io.rnic.wire.BthFlyweight"), "rnic-engine's classes were not imported");
        assertTrue(classes.contain("io.rnic.cli.RnicCli"), "perf's classes were not imported");
        assertTrue(classes.stream().anyMatch(inModule("rnic-engine")), "no class was found to come from rnic-engine");
        assertTrue(classes.stream().anyMatch(inModule("rnic-client")), "no class was found to come from rnic-client");
    }

    @Test
    void shouldHaveNoCycleBetweenPackages()
    {
        slices().matching("io.rnic.(**)").should().beFreeOfCycles().check(classes);
    }

    /**
     * The same rule over the sources' imports: a compile-time constant is inlined into the class that reads it, so
     * ArchUnit, which reads class files, cannot see a package that takes only constants from another.
     */
    @Test
    void shouldHaveNoCycleBetweenPackagesInTheSourcesImports() throws java.io.IOException
    {
        final java.util.Map<String, java.util.Set<String>> uses = new java.util.TreeMap<>();
        final java.util.regex.Pattern imported = java.util.regex.Pattern.compile(
            "^import (?:static )?(io\\.rnic(?:\\.[a-z][a-z0-9]*)*)\\.[A-Z]", java.util.regex.Pattern.MULTILINE);
        final java.nio.file.Path root = java.nio.file.Path.of("..").toAbsolutePath().normalize();
        try (java.util.stream.Stream<java.nio.file.Path> files = java.nio.file.Files.walk(root))
        {
            for (final java.nio.file.Path file : (Iterable<java.nio.file.Path>)files
                .filter(f -> f.toString().endsWith(".java") && f.toString().contains("/src/main/java/") &&
                    !f.toString().contains("/target/"))::iterator)
            {
                final String source = java.nio.file.Files.readString(file);
                final java.util.regex.Matcher pkg = java.util.regex.Pattern.compile("^package ([a-z.0-9]+);",
                    java.util.regex.Pattern.MULTILINE).matcher(source);
                if (!pkg.find())
                {
                    continue;
                }
                final java.util.Set<String> used = uses.computeIfAbsent(pkg.group(1), k -> new java.util.TreeSet<>());
                final java.util.regex.Matcher m = imported.matcher(source);
                while (m.find())
                {
                    if (!m.group(1).equals(pkg.group(1)))
                    {
                        used.add(m.group(1));
                    }
                }
            }
        }
        assertTrue(uses.size() > 30, "only " + uses.size() + " packages found under " + root);
        for (final String from : uses.keySet())
        {
            // depth-first from each package: reaching it again is a cycle
            final java.util.Deque<String> todo = new java.util.ArrayDeque<>(uses.get(from));
            final java.util.Set<String> seen = new java.util.HashSet<>();
            while (!todo.isEmpty())
            {
                final String next = todo.pop();
                assertTrue(!next.equals(from), "a cycle through " + from + " in the sources' imports");
                if (seen.add(next))
                {
                    todo.addAll(uses.getOrDefault(next, java.util.Set.of()));
                }
            }
        }
    }

    @Test
    void shouldKeepTheEngineFreeOfPortsAndTools()
    {
        noClasses().that(inModule("rnic-engine"))
            .should().dependOnClassesThat().resideInAnyPackage(
                "io.rnic.datapath..", "io.rnic.dpdkbindings..", "io.rnic.tools..", "io.rnic.cli..",
                "io.rnic.simulation..", "io.rnic.bench..")
            .because("the engine is the library the ports, the tools and the commands are built on")
            .check(classes);
    }

    @Test
    void shouldKeepTheWireFormatAtTheBottom()
    {
        noClasses().that().resideInAPackage("io.rnic.wire..")
            .should().dependOnClassesThat(
                resideInAPackage("io.rnic..").and(not(resideInAnyPackage("io.rnic.wire..", "io.rnic.icrc..",
                    "io.rnic.status.."))))
            .because("the wire format (flyweights, opcode table, validation) uses only the ICRC and the counters")
            .check(classes);
        noClasses().that().resideInAPackage("io.rnic.status..")
            .should().dependOnClassesThat(resideInAPackage("io.rnic..").and(not(resideInAPackage("io.rnic.status.."))))
            .because("the counters are Agrona's buffers and labels, which a separate reader maps without rnic")
            .check(classes);
        noClasses().that().resideInAPackage("io.rnic.icrc..")
            .should().dependOnClassesThat(resideInAPackage("io.rnic..").and(not(resideInAPackage("io.rnic.icrc.."))))
            .because("the ICRC is a checksum over bytes")
            .check(classes);
    }

    @Test
    void shouldKeepVerbsFreeOfTheTransport()
    {
        noClasses().that().resideInAPackage("io.rnic.verbs..")
            .should().dependOnClassesThat().resideInAnyPackage("io.rnic.transport..", "io.rnic.device..")
            .because("verbs are the API's types; the device layer above joins them to the transport")
            .check(classes);
    }

    @Test
    void shouldKeepDpdkBindingsFreeOfRnic()
    {
        noClasses().that().resideInAPackage("io.rnic.dpdkbindings..")
            .should().dependOnClassesThat(
                resideInAPackage("io.rnic..").and(not(resideInAPackage("io.rnic.dpdkbindings.."))))
            .because("the bindings are DPDK's API through FFM, nothing of rnic's")
            .check(classes);
    }

    @Test
    void shouldKeepSharedMemoryFreeOfRnic()
    {
        noClasses().that().resideInAPackage("io.rnic.shm..")
            .should().dependOnClassesThat(resideInAPackage("io.rnic..")
                .and(not(resideInAnyPackage("io.rnic.shm..", "io.rnic"))))
            .because("shared memory is Linux's memfd through FFM, which the driver and its clients both build on " +
                "(its failures are RnicExceptions, the one type an embedder catches)")
            .check(classes);
    }

    @Test
    void shouldKeepTheClientLibraryInItsOwnModule()
    {
        noClasses().that().resideInAnyPackage("io.rnic.client..", "io.rnic.cnc..")
            .should(notBeIn("rnic-engine"))
            .because("the client library and the driver protocol are rnic-client's, beside the engine, not inside it")
            .check(classes);
    }

    @Test
    void shouldKeepTheClientLibraryFreeOfPortsAndEngines()
    {
        // the RDMA CM's application side (what a client drives: CmService, CmId, and the values they carry) is
        // shared; its machinery (the manager on QP1, the agent in a duty cycle, the MADs) is the driver's
        final DescribedPredicate<JavaClass> cmApplicationSide = JavaClass.Predicates.belongToAnyOf(
            io.rnic.cm.CmService.class, io.rnic.cm.CmId.class, io.rnic.cm.CmState.class, io.rnic.cm.CmCounter.class);
        noClasses().that().resideInAnyPackage("io.rnic.client..", "io.rnic.cnc..")
            .should().dependOnClassesThat(resideInAnyPackage("io.rnic.datapath..", "io.rnic.dpdkbindings..",
                "io.rnic.tools..", "io.rnic.cli..", "io.rnic.cm..", "io.rnic.sim..").and(not(cmApplicationSide)))
            .because("a driver's client runs no engine, no connection manager and opens no port: DPDK, AF_PACKET " +
                "and QP1 stay in the driver")
            .check(classes);
        noClasses().that().resideInAPackage("io.rnic.client..")
            .should().dependOnClassesThat().haveFullyQualifiedName("io.rnic.transport.RnicEngine")
            .because("the client's QPs post into shared rings; the engine is the driver's")
            .check(classes);
    }

    private static com.tngtech.archunit.lang.ArchCondition<JavaClass> notBeIn(final String module)
    {
        return new com.tngtech.archunit.lang.ArchCondition<>("not be in module " + module)
        {
            public void check(final JavaClass javaClass, final com.tngtech.archunit.lang.ConditionEvents events)
            {
                if (inModule(module).test(javaClass))
                {
                    events.add(com.tngtech.archunit.lang.SimpleConditionEvent.violated(
                        javaClass, javaClass.getName() + " is in " + module));
                }
            }
        };
    }

    /**
     * Classes loaded from a module's build output or jar ({@code rnic-engine/target/classes},
     * {@code rnic-engine-*.jar}).
     */
    private static DescribedPredicate<JavaClass> inModule(final String module)
    {
        return DescribedPredicate.describe("are in module " + module, javaClass -> javaClass.getSource()
            .map(source -> source.getUri().toString().contains("/" + module + "/") ||
                source.getUri().toString().contains("/" + module + "-"))
            .orElse(false));
    }
}
