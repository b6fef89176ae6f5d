package dev.efferent.tools.fs;

import dev.efferent.tools.spi.AllowedRoots;
import dev.efferent.plugin.Settings;
import dev.efferent.tools.spi.ToolException;
import org.junit.jupiter.api.BeforeEach;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.api.io.TempDir;

import java.io.IOException;
import java.nio.channels.SeekableByteChannel;
import java.nio.file.Files;
import java.nio.file.Path;
import java.util.List;

import static org.junit.jupiter.api.Assertions.assertEquals;
import static org.junit.jupiter.api.Assertions.assertFalse;
import static org.junit.jupiter.api.Assertions.assertThrows;
import static org.junit.jupiter.api.Assertions.assertTrue;

/** The handle walk, with the swap made by hand between the check and the use, so each outcome is certain. */
class ConfinedPathTest {
    @TempDir
    Path root;
    @TempDir
    Path outside;
    private AllowedRoots roots;
    private final FsLimits limits = FsLimits.from(Settings.empty());

    @BeforeEach
    void makeTree() throws IOException {
        roots = AllowedRoots.of(List.of(root));
        Files.createDirectories(root.resolve("d"));
        Files.writeString(root.resolve("d/secret.txt"), "inside\n");
        Files.writeString(outside.resolve("secret.txt"), "top secret\n");
    }

    /** Renames the real 'd' away and puts a link to outside in its place. */
    private void swapInALink() throws IOException {
        Files.move(root.resolve("d"), root.resolve("d.away"));
        Files.createSymbolicLink(root.resolve("d"), outside);
    }

    @Test
    void aWriteAfterTheSwapStaysInTheDirectoryThatWasOpened() throws IOException {
        try (ConfinedPath file = ConfinedPath.openCreatingParents(roots, "d/new.txt", limits)) {
            swapInALink();
            file.replace("x".getBytes());
        }
        assertFalse(Files.exists(outside.resolve("new.txt")), "written through the link");
        assertEquals("x", Files.readString(root.resolve("d.away/new.txt")));
    }

    @Test
    void aReadAfterTheSwapIsRefusedRatherThanLeadOutside() throws IOException {
        try (ConfinedPath file = ConfinedPath.open(roots, "d/secret.txt", limits)) {
            swapInALink();
            // The handle still holds the real directory; the link-count check by path now meets another file.
            ToolException e = assertThrows(ToolException.class, () -> {
                try (SeekableByteChannel ignored = file.openForReading()) {
                    throw new AssertionError("opened a file whose path now leads outside");
                }
            });
            assertEquals("'" + root.toRealPath().resolve("d/secret.txt") + "' was replaced while it was being "
                    + "opened; try again once it stays put", e.getMessage());
        }
    }

    @Test
    void aDirectorySwappedForALinkIsNotEntered() throws IOException {
        try (ConfinedPath dir = ConfinedPath.open(roots, "d", limits)) {
            swapInALink();
            ToolException e = assertThrows(ToolException.class, dir::openDirectory);
            assertTrue(e.getMessage().endsWith("d' became a symbolic link after the path was checked; the file tools "
                    + "do not follow links that change under them. Try again once the path stays put"), e.getMessage());
        }
    }

    @Test
    void linksInsideTheRootAreResolvedBeforeTheWalk() throws IOException {
        Files.createSymbolicLink(root.resolve("alias"), root.resolve("d"));
        // resolve() turns the link into its real target, so the walk itself never meets it ...
        try (ConfinedPath file = ConfinedPath.open(roots, "alias/secret.txt", limits)) {
            assertEquals(root.toRealPath().resolve("d/secret.txt"), file.path());
        }
        // ... and the root is the walk's start, so a path equal to it works as '.'.
        try (ConfinedPath top = ConfinedPath.open(roots, ".", limits); ConfinedPath dir = top.openDirectory()) {
            assertEquals(List.of("alias", "d"), dir.names().stream().sorted().toList());
        }
    }
}
