package io.rnic.icrc;

/**
 * Whether the incubating Vector API can be used, found without loading a class of it: {@link VectorIcrc} links
 * against {@code jdk.incubator.vector}, which a JVM resolves only when started with
 * {@code --add-modules jdk.incubator.vector}. Without it every use of that class is a {@link NoClassDefFoundError},
 * so the ICRC's selection ({@link AdaptiveIcrc}, {@link IcrcBurst}) asks here first and keeps to the scalar and
 * intrinsic implementations.
 */
final class VectorApi
{
    /** The module's name, as {@code --add-modules} takes it. */
    static final String MODULE = "jdk.incubator.vector";

    /** Whether the module is in the boot layer, where an application on the class path can read it. */
    static final boolean PRESENT = ModuleLayer.boot().findModule(MODULE).isPresent();

    /** Present, and the CPU runs 64-byte vectors natively: the only case in which the vector code pays. */
    static final boolean ACCELERATED = PRESENT && VectorIcrc.isAccelerated();

    private VectorApi()
    {
    }
}
