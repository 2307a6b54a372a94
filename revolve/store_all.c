/* placeholder */ typedef int ebb_placeholder_store_all;
