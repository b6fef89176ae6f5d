/**
 * File tools confined to the allowed roots: read_file, write_file, edit_file, list_dir, search_files, stat.
 *
 * @provides dev.efferent.tools.spi.ToolkitProvider
 */
module efferent.tools.fs {
    requires efferent.tools.spi;

    provides dev.efferent.tools.spi.ToolkitProvider
            with dev.efferent.tools.fs.FsToolkitProvider;
}
