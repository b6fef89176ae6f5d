package dev.efferent.tools.shell;

import dev.efferent.plugin.Settings;
import dev.efferent.tools.spi.ToolException;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.api.io.TempDir;

import java.io.IOException;
import java.nio.file.Files;
import java.nio.file.Path;
import java.util.List;
import java.util.Optional;

import static org.junit.jupiter.api.Assertions.assertEquals;
import static org.junit.jupiter.api.Assertions.assertThrows;
import static org.junit.jupiter.api.Assertions.assertTrue;

/** Reading {@code tools.shell.hide} and what bubblewrap is told to mount for it. */
class HiddenPathsTest {
    private static final Path HOME = Path.of("/home/ada");

    private static Settings hide(String value) {
        return key -> key.equals("hide") ? Optional.of(value) : Optional.empty();
    }

    @Test
    void unsetHidesTheDefaultsInTheHome() {
        HiddenPaths hidden = HiddenPaths.from(Settings.empty(), HOME);
        assertEquals(HiddenPaths.DEFAULT, hidden.entries());
        assertTrue(hidden.paths().containsAll(List.of(Path.of("/home/ada/.efferent"), Path.of("/home/ada/.ssh"),
                Path.of("/home/ada/.gnupg"), Path.of("/home/ada/.aws"), Path.of("/home/ada/.netrc"),
                Path.of("/home/ada/.git-credentials"))), hidden.paths().toString());
        assertTrue(hidden.paths().stream().allMatch(p -> p.startsWith(HOME)), hidden.paths().toString());
    }

    @Test
    void anEmptyValueHidesNothing() {
        // "hide: []" and "hide: ''" both reach a toolkit as a value that is set and empty.
        assertEquals(List.of(), HiddenPaths.from(hide(""), HOME).paths());
        assertEquals(List.of(), HiddenPaths.from(hide(" , "), HOME).paths());
    }

    @Test
    void aSetListReplacesTheDefaultAndExpandsTheHome() {
        HiddenPaths hidden = HiddenPaths.from(hide("~/.vault, /srv/keys/../secrets,~"), HOME);
        assertEquals(List.of(Path.of("/home/ada/.vault"), Path.of("/srv/secrets"), HOME), hidden.paths());
        assertEquals("~/.vault, /srv/keys/../secrets, ~", hidden.shown());
    }

    @Test
    void aRelativePathOrTheWholeFileSystemIsRefusedWithTheEntry() {
        ToolException relative = assertThrows(ToolException.class, () -> HiddenPaths.from(hide(".ssh"), HOME));
        assertEquals("setting 'tools.shell.hide' has the entry '.ssh': a path to hide must be absolute or start with "
                + "~/", relative.getMessage());
        ToolException user = assertThrows(ToolException.class, () -> HiddenPaths.from(hide("~bob/.ssh"), HOME));
        assertTrue(user.getMessage().startsWith("setting 'tools.shell.hide' has the entry '~bob/.ssh'"),
                user.getMessage());
        ToolException root = assertThrows(ToolException.class, () -> HiddenPaths.from(hide("/,~/.ssh"), HOME));
        assertEquals("setting 'tools.shell.hide' has the entry '/', which would hide the whole file system; list the "
                + "directories that hold secrets instead", root.getMessage());
    }

    @Test
    void directoriesGetATmpfsFilesDevNullAndMissingOnesNothing(@TempDir Path dir) throws IOException {
        Path secrets = Files.createDirectory(dir.resolve("secrets"));
        Path token = Files.writeString(dir.resolve("token"), "t");
        Path link = Files.createSymbolicLink(dir.resolve("link-to-secrets"), secrets);
        HiddenPaths hidden = HiddenPaths.of(List.of(secrets.toString(), token.toString(),
                dir.resolve("missing").toString(), link.toString()), HOME);
        Path real = secrets.toRealPath();
        assertEquals(List.of(List.of("--tmpfs", real.toString()),
                List.of("--ro-bind", "/dev/null", token.toRealPath().toString()),
                List.of("--tmpfs", real.toString())),
                hidden.mounts().stream().map(BwrapSandbox.Mount::args).toList());
    }
}
