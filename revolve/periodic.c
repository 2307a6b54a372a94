/* placeholder */ typedef int ebb_placeholder_periodic;
