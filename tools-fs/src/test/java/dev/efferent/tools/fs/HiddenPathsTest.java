package dev.efferent.tools.fs;

import dev.efferent.tools.spi.AllowedRoots;
import org.junit.jupiter.api.BeforeEach;
import org.junit.jupiter.api.Test;

import java.io.IOException;
import java.nio.file.Files;
import java.nio.file.Path;
import java.util.List;
import java.util.Map;

import static org.junit.jupiter.api.Assertions.assertEquals;
import static org.junit.jupiter.api.Assertions.assertFalse;
import static org.junit.jupiter.api.Assertions.assertTrue;

/**
 * A home directory as the root, with {@code .ssh} and {@code .efferent} hidden (as {@code tools.shell.hide} does by
 * default): no file tool reads, writes, lists or searches them, by name, by absolute path or through a link.
 */
class HiddenPathsTest extends FsToolsTest {
    private static final String HIDDEN = "is hidden from tools: it holds credentials or Efferent's own state "
            + "(tools.shell.hide lists what is hidden; set it to change that)";

    @Override
    AllowedRoots allowedRoots() {
        return AllowedRoots.of(List.of(root), List.of(root.resolve(".ssh"), root.resolve(".efferent"),
                root.resolve(".config/gh")));
    }

    @BeforeEach
    void makeAHome() throws IOException {
        Files.createDirectories(root.resolve(".ssh"));
        Files.writeString(root.resolve(".ssh/id_ed25519"), "PRIVATE KEY material\n");
        Files.createDirectories(root.resolve(".efferent/brain"));
        Files.writeString(root.resolve(".efferent/brain/api-token"), "the brain's token\n");
        Files.writeString(root.resolve(".bashrc"), "export EDITOR=vi\n");
        Files.writeString(root.resolve("notes.txt"), "buy milk\n");
        Files.createSymbolicLink(root.resolve("keys"), root.resolve(".ssh"));
    }

    @Test
    void aHiddenPathMadeLaterBehindALinkIsHiddenToo() throws IOException {
        // A stow-style ~/.config that is a link into a dotfiles checkout; the GitHub CLI logs in after the start.
        Files.createDirectories(root.resolve("dotfiles/config"));
        Files.createSymbolicLink(root.resolve(".config"), root.resolve("dotfiles/config"));
        Files.createDirectories(root.resolve("dotfiles/config/gh"));
        Files.writeString(root.resolve("dotfiles/config/gh/hosts.yml"), "oauth_token: gho_secret\n");
        assertEquals("path 'dotfiles/config/gh/hosts.yml' " + HIDDEN,
                error("read_file", Map.of("path", "dotfiles/config/gh/hosts.yml")));
        assertEquals("path '.config/gh/hosts.yml' " + HIDDEN, error("read_file", Map.of("path", ".config/gh/hosts.yml")));
        String found = ok("search_files", Map.of("pattern", "gho_secret|milk")).text();
        assertFalse(found.contains("gho_secret"), found);
    }

    @Test
    void hiddenPathsAreRefusedHoweverTheyAreNamed() {
        assertEquals("path '.ssh/id_ed25519' " + HIDDEN, error("read_file", Map.of("path", ".ssh/id_ed25519")));
        assertEquals("path '" + root.resolve(".ssh/id_ed25519") + "' " + HIDDEN,
                error("read_file", Map.of("path", root.resolve(".ssh/id_ed25519").toString())));
        assertEquals("path 'keys/id_ed25519' " + HIDDEN, error("read_file", Map.of("path", "keys/id_ed25519")));
        assertEquals("path '.ssh/../.ssh/authorized_keys' " + HIDDEN, error("write_file",
                Map.of("path", ".ssh/../.ssh/authorized_keys", "content", "ssh-ed25519 AAAA attacker")));
        assertFalse(Files.exists(root.resolve(".ssh/authorized_keys")));
        assertEquals("path '.efferent/brain/api-token' " + HIDDEN, error("stat",
                Map.of("path", ".efferent/brain/api-token")));
        assertEquals("path '.ssh' " + HIDDEN, error("list_dir", Map.of("path", ".ssh")));
        assertEquals("export EDITOR=vi\n", ok("read_file", Map.of("path", ".bashrc")).text(), "not every dotfile");
    }

    @Test
    void listingsAndSearchesLeaveThemOut() {
        String listed = ok("list_dir", Map.of("include_hidden", true, "depth", 3)).text();
        assertFalse(listed.contains("id_ed25519") || listed.contains(".efferent"), listed);
        assertTrue(listed.lines().noneMatch(l -> l.strip().equals(".ssh/")), listed);
        assertTrue(listed.contains(".bashrc") && listed.contains("notes.txt"), listed);
        String found = ok("search_files", Map.of("pattern", "PRIVATE|token|milk")).text();
        assertFalse(found.contains("PRIVATE") || found.contains("token"), found);
        assertTrue(found.contains("notes.txt:1: buy milk"), found);
    }
}
