/* placeholder */ typedef int ebb_placeholder_disk_revolve;
