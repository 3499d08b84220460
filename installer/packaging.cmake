# Installation layout and CPack (DEB and TGZ). The .deb's Depends come from dpkg-shlibdeps;
# the CUDA runtime is linked statically (core/cuda), so the package runs without CUDA.
set(SPARSITY_INSTALLER_DIR ${PROJECT_SOURCE_DIR}/installer)

# Desktop integration: launcher, AppStream metadata, icons in the hicolor theme.
install(FILES ${SPARSITY_INSTALLER_DIR}/linux/sparsity-workbench.desktop DESTINATION ${CMAKE_INSTALL_DATADIR}/applications)
install(FILES ${SPARSITY_INSTALLER_DIR}/linux/io.github.sparsity_workbench.metainfo.xml
        DESTINATION ${CMAKE_INSTALL_DATADIR}/metainfo)
install(FILES ${SPARSITY_INSTALLER_DIR}/linux/icons/sparsity-workbench.svg
        DESTINATION ${CMAKE_INSTALL_DATADIR}/icons/hicolor/scalable/apps)
foreach(size 16 24 32 48 64 128 256)
  install(FILES ${SPARSITY_INSTALLER_DIR}/linux/icons/sparsity-workbench-${size}.png
          DESTINATION ${CMAKE_INSTALL_DATADIR}/icons/hicolor/${size}x${size}/apps RENAME sparsity-workbench.png)
endforeach()

# Man pages, compressed as Debian ships them.
set(SPARSITY_MAN_PAGES)
foreach(page sparsity sparsity-workbench)
  set(compressed ${CMAKE_CURRENT_BINARY_DIR}/man/${page}.1.gz)
  add_custom_command(OUTPUT ${compressed}
    COMMAND ${CMAKE_COMMAND} -E make_directory ${CMAKE_CURRENT_BINARY_DIR}/man
    COMMAND gzip -9n -c ${SPARSITY_INSTALLER_DIR}/man/${page}.1 > ${compressed}
    DEPENDS ${SPARSITY_INSTALLER_DIR}/man/${page}.1 VERBATIM)
  list(APPEND SPARSITY_MAN_PAGES ${compressed})
endforeach()
add_custom_target(sparsity_man_pages ALL DEPENDS ${SPARSITY_MAN_PAGES})
install(FILES ${SPARSITY_MAN_PAGES} DESTINATION ${CMAKE_INSTALL_MANDIR}/man1)

# Debian keeps docs under the package name (CMAKE_INSTALL_DOCDIR would use the project name).
install(FILES ${PROJECT_SOURCE_DIR}/LICENSE ${PROJECT_SOURCE_DIR}/README.md
        DESTINATION ${CMAKE_INSTALL_DATADIR}/doc/sparsity-workbench)

set(CPACK_PACKAGE_NAME "sparsity-workbench")
set(CPACK_PACKAGE_VENDOR "Sparsity Workbench developers")
set(CPACK_PACKAGE_CONTACT "Sparsity Workbench developers <dev@sparsity-workbench.invalid>")
set(CPACK_PACKAGE_DESCRIPTION_SUMMARY "${PROJECT_DESCRIPTION}")
set(CPACK_PACKAGE_DESCRIPTION
    "Sparsify tensors and embedding tables in HDF5 files with PyTorch's data-sparsifier masks, run optimizer steps under dense, lazy and masked semantics, evaluate masked-tensor expressions and gradcheck them; a Qt desktop application and the command-line tool sparsity.")
set(CPACK_PACKAGE_VERSION "${PROJECT_VERSION}")
set(CPACK_RESOURCE_FILE_LICENSE "${PROJECT_SOURCE_DIR}/LICENSE")
set(CPACK_GENERATOR "DEB;TGZ")
set(CPACK_STRIP_FILES ON)
set(CPACK_PACKAGING_INSTALL_PREFIX "/usr")
set(CPACK_DEBIAN_PACKAGE_SHLIBDEPS ON)
set(CPACK_DEBIAN_PACKAGE_SECTION "science")
# Plugins of the filters other tools compress HDF5 datasets with (docs/HDF5_ENCODINGS.md,
# "Compression"): without them such datasets are refused, saying which plugin is missing.
set(CPACK_DEBIAN_PACKAGE_SUGGESTS "hdf5-filter-plugin, hdf5-filter-plugin-blosc-serial, hdf5-filter-plugin-zfp-serial")
set(CPACK_DEBIAN_PACKAGE_HOMEPAGE "https://github.com/sparsity-workbench/sparsity-workbench")
set(CPACK_DEBIAN_FILE_NAME DEB-DEFAULT)
include(CPack)
