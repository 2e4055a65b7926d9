from devc.cli import DevcontainerCli
